package kotlin.coroutines;

/**
 * A stand-in for Kotlin's coroutine continuation (Kotlin is not on this module's test
 * class path): a Kotlin {@code suspend fun call(name: String)} compiles to a method
 * {@code Object call(String name, Continuation<? super Unit> continuation)}, and the
 * starter recognises it by that last parameter's class name.
 *
 * @param <T> the type of the coroutine's result
 */
public interface Continuation<T> {

}
