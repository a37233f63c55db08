package io.github.redislock.internal.aop;

import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Set;
import java.util.regex.Pattern;

import org.jspecify.annotations.Nullable;

import org.springframework.core.DefaultParameterNameDiscoverer;
import org.springframework.core.ParameterNameDiscoverer;
import org.springframework.expression.Expression;
import org.springframework.expression.ParseException;
import org.springframework.expression.spel.SpelNode;
import org.springframework.expression.spel.ast.Assign;
import org.springframework.expression.spel.ast.BeanReference;
import org.springframework.expression.spel.ast.ConstructorReference;
import org.springframework.expression.spel.ast.FunctionReference;
import org.springframework.expression.spel.ast.MethodReference;
import org.springframework.expression.spel.ast.OpDec;
import org.springframework.expression.spel.ast.OpInc;
import org.springframework.expression.spel.ast.OperatorInstanceof;
import org.springframework.expression.spel.ast.TypeReference;
import org.springframework.expression.spel.ast.VariableReference;
import org.springframework.expression.spel.standard.SpelExpression;
import org.springframework.expression.spel.standard.SpelExpressionParser;
import org.springframework.expression.spel.support.SimpleEvaluationContext;

/**
 * The key expressions of one annotated method, parsed and checked once, evaluated per
 * call in a restricted context.
 * <p>
 * Expressions may read the method's arguments (by name, {@code #p0} or {@code #a0}) and
 * their properties, index lists and maps, and use operators. Type references, bean
 * references, constructors, method and function calls and assignments are refused when
 * the application starts, and the evaluation context could not run them anyway.
 */
final class LockKeyExpressions {

	private static final SpelExpressionParser PARSER = new SpelExpressionParser();

	private static final ParameterNameDiscoverer PARAMETER_NAMES = new DefaultParameterNameDiscoverer();

	private static final Pattern INDEXED_PARAMETER = Pattern.compile("[pa](\\d+)");

	private static final Set<Class<?>> FORBIDDEN = Set.of(TypeReference.class, BeanReference.class,
			ConstructorReference.class, MethodReference.class, FunctionReference.class, Assign.class, OpInc.class,
			OpDec.class, OperatorInstanceof.class);

	private final String description;

	private final String label;

	private final String[] texts;

	private final Expression[] expressions;

	private final String @Nullable [] parameterNames;

	/**
	 * Per expression: the index of the argument it is, when it is no more than a
	 * parameter reference ({@code #orderId}, {@code #p0}), else -1. Such an expression is
	 * read straight from the arguments, without an evaluation.
	 */
	private final int[] arguments;

	private LockKeyExpressions(String description, String label, String[] texts, Expression[] expressions,
			String @Nullable [] parameterNames) {
		this.description = description;
		this.label = label;
		this.texts = texts;
		this.expressions = expressions;
		this.parameterNames = parameterNames;
		this.arguments = new int[expressions.length];
		for (int i = 0; i < expressions.length; i++) {
			this.arguments[i] = argumentIndex(expressions[i], parameterNames);
		}
	}

	private static int argumentIndex(Expression expression, String @Nullable [] names) {
		if (!(expression instanceof SpelExpression spel) || !(spel.getAST() instanceof VariableReference reference)
				|| reference.getChildCount() != 0) {
			return -1;
		}
		String variable = reference.toStringAST().substring(1);
		var indexed = INDEXED_PARAMETER.matcher(variable);
		if (indexed.matches()) {
			return Integer.parseInt(indexed.group(1));
		}
		return (names != null) ? Arrays.asList(names).indexOf(variable) : -1;
	}

	static LockKeyExpressions parse(String description, Method method, String[] texts) {
		return parse(description, "key", method, texts);
	}

	/**
	 * Parse and check expressions.
	 * @param label what they are, for messages ("key", "id")
	 */
	static LockKeyExpressions parse(String description, String label, Method method, String[] texts) {
		String @Nullable [] names = PARAMETER_NAMES.getParameterNames(method);
		if (texts.length > 0) {
			checkNoShadowing(description, method, names);
		}
		Expression[] expressions = new Expression[texts.length];
		for (int i = 0; i < texts.length; i++) {
			expressions[i] = parseOne(description, label, method, names, texts[i]);
		}
		return new LockKeyExpressions(description, label, texts, expressions, names);
	}

	/**
	 * A parameter named like the index variable of another parameter ({@code a1} as the
	 * first parameter) would make {@code #a1} mean one or the other.
	 */
	private static void checkNoShadowing(String description, Method method, String @Nullable [] names) {
		if (names == null) {
			return;
		}
		for (int i = 0; i < names.length; i++) {
			var indexed = INDEXED_PARAMETER.matcher(names[i]);
			if (indexed.matches() && !indexed.group(1).equals(Integer.toString(i))) {
				throw new InvalidLockDefinitionException(
						description + ": parameter '" + names[i] + "' is named like the index variable of parameter "
								+ indexed.group(1) + ", so #" + names[i] + " would be ambiguous",
						"Rename the parameter (names like p0, a1 are reserved for positions)");
			}
		}
	}

	static String[] parameterNames(Method method) {
		String @Nullable [] names = PARAMETER_NAMES.getParameterNames(method);
		if (names != null) {
			return names;
		}
		String[] indexed = new String[method.getParameterCount()];
		for (int i = 0; i < indexed.length; i++) {
			indexed[i] = "p" + i;
		}
		return indexed;
	}

	private static Expression parseOne(String description, String label, Method method, String @Nullable [] names,
			String text) {
		if (text.isBlank()) {
			throw new InvalidLockDefinitionException(description + ": " + label + " expression is empty",
					"Remove the empty key, or write an expression over the parameters such as '#"
							+ ((names != null && names.length > 0) ? names[0] : "p0") + "'");
		}
		SpelExpression expression;
		try {
			expression = PARSER.parseRaw(text);
		}
		catch (ParseException ex) {
			throw new InvalidLockDefinitionException(
					description + ": " + label + " expression '" + text + "' is not valid SpEL: " + ex.getMessage(),
					"Correct the expression; keys read arguments such as '#orderId' or '#order.id'", ex);
		}
		check(description + ": " + label, method, names, text, expression.getAST());
		return expression;
	}

	private static void check(String description, Method method, String @Nullable [] names, String text,
			SpelNode node) {
		if (FORBIDDEN.contains(node.getClass())) {
			throw new InvalidLockDefinitionException(
					description + " expression '" + text + "' uses '" + node.toStringAST()
							+ "'; expressions may only read the method's arguments and their properties",
					"Compute the value in the method's caller and pass it as an argument, or read it as a property");
		}
		if (node instanceof VariableReference) {
			String variable = node.toStringAST().substring(1);
			if (!isParameter(variable, method, names)) {
				throw new InvalidLockDefinitionException(
						description + " expression '" + text + "' refers to no parameter ('#" + variable
								+ "'); parameters are " + describeParameters(method, names),
						(names != null) ? "Use one of the parameter names, or #p0, #p1, ..."
								: "Compile with '-parameters' to use parameter names, or use #p0, #p1, ...");
			}
		}
		for (int i = 0; i < node.getChildCount(); i++) {
			check(description, method, names, text, node.getChild(i));
		}
	}

	private static boolean isParameter(String variable, Method method, String @Nullable [] names) {
		var indexed = INDEXED_PARAMETER.matcher(variable);
		if (indexed.matches()) {
			return Integer.parseInt(indexed.group(1)) < method.getParameterCount();
		}
		return names != null && Arrays.asList(names).contains(variable);
	}

	private static String describeParameters(Method method, String @Nullable [] names) {
		if (names != null) {
			return Arrays.toString(names);
		}
		List<String> indexed = new ArrayList<>();
		for (int i = 0; i < method.getParameterCount(); i++) {
			indexed.add("p" + i);
		}
		return indexed + " (names are unknown: compiled without -parameters)";
	}

	boolean isEmpty() {
		return this.expressions.length == 0;
	}

	/**
	 * Evaluate the expressions for one call and append them to {@code name}, each after a
	 * {@code :}.
	 */
	String appendTo(String name, @Nullable Object[] arguments) {
		return (this.expressions.length != 0) ? name + ":" + join(arguments) : name;
	}

	/**
	 * Evaluate the (first) expression for one call.
	 */
	@Nullable Object value(@Nullable Object[] arguments) {
		if (this.arguments[0] >= 0) {
			return arguments[this.arguments[0]];
		}
		return this.expressions[0].getValue(context(arguments));
	}

	/**
	 * Return the expression's text, for messages.
	 */
	String text() {
		return this.texts[0];
	}

	private SimpleEvaluationContext context(@Nullable Object[] arguments) {
		SimpleEvaluationContext context = SimpleEvaluationContext.forReadOnlyDataBinding().build();
		for (int i = 0; i < arguments.length; i++) {
			context.setVariable("p" + i, arguments[i]);
			context.setVariable("a" + i, arguments[i]);
			if (this.parameterNames != null) {
				context.setVariable(this.parameterNames[i], arguments[i]);
			}
		}
		return context;
	}

	/**
	 * Evaluate the expressions for one call, joined with {@code :}.
	 */
	String join(@Nullable Object[] arguments) {
		SimpleEvaluationContext context = null;
		StringBuilder result = new StringBuilder();
		for (int i = 0; i < this.expressions.length; i++) {
			Object value;
			if (this.arguments[i] >= 0) {
				value = arguments[this.arguments[i]];
			}
			else {
				if (context == null) {
					context = context(arguments);
				}
				value = this.expressions[i].getValue(context);
			}
			String text = (value != null) ? value.toString() : null;
			if (text == null || text.isBlank()) {
				throw new IllegalArgumentException(this.description + ": " + this.label + " expression '"
						+ this.texts[i] + "' evaluated to " + ((text == null) ? "null" : "a blank string")
						+ "; it must identify what is locked or queued, so pass a value");
			}
			if (i > 0) {
				result.append(':');
			}
			result.append(text);
		}
		return result.toString();
	}

}
