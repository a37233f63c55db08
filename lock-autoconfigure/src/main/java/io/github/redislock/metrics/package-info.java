import org.jspecify.annotations.NullMarked;
