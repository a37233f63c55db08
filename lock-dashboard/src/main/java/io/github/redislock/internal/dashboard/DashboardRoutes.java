package io.github.redislock.internal.dashboard;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Enumeration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.stream.Collectors;

import io.github.redislock.admin.AdminRequestException;
import io.github.redislock.admin.DeadLetterPreview;
import io.github.redislock.admin.RedisLockAdmin;
import io.github.redislock.admin.TaskPreview;
import io.github.redislock.core.HeldLock;
import io.github.redislock.core.LockHolder;
import io.github.redislock.support.Printable;
import io.github.redislock.internal.admin.QueueActions;
import jakarta.servlet.http.HttpServletRequest;
import org.jspecify.annotations.Nullable;

import org.springframework.core.io.ClassPathResource;
import org.springframework.http.CacheControl;
import org.springframework.http.HttpStatus;
import org.springframework.http.MediaType;
import org.springframework.util.ClassUtils;
import org.springframework.util.function.SingletonSupplier;
import org.springframework.web.servlet.function.RouterFunction;
import org.springframework.web.servlet.function.RouterFunctions;
import org.springframework.web.servlet.function.ServerRequest;
import org.springframework.web.servlet.function.ServerResponse;
import org.springframework.web.util.HtmlUtils;

/**
 * The dashboard's routes under its path {@code P}: the page ({@code GET P}), its two
 * assets, its data ({@code GET P/api/state}, {@code P/api/queue?name=} — without
 * payloads, which the page does not show in its lists, and with errors cut to previews —,
 * {@code P/api/task?queue=&id=&state=dead|waiting} — one task whole, on demand —,
 * {@code P/api/holder?name=}) and its actions ({@code POST P/api/action} with a JSON body
 * {@code {"action": ..., "queue": ..., "id": ...}}).
 * <p>
 * Actions are refused (403) unless the caller may write — with Spring Security on the
 * class path, an authenticated user with the configured role; without it, only when
 * {@code redislock.dashboard.write-enabled} is set — and unless the request comes from
 * the page itself: it carries the dashboard's {@code X-RedisLock-Dashboard} header (which
 * a cross-site form cannot send, and a cross-site script cannot without a CORS preflight
 * that is never granted), and its {@code Origin} and {@code Sec-Fetch-Site} headers, when
 * present, say same origin. Spring Security's own CSRF protection applies on top. Bad
 * input gets 400 with a message and changes nothing.
 *
 * @since 0.1.0
 */
public final class DashboardRoutes {

	static final String HEADER = "X-RedisLock-Dashboard";

	private static final boolean SECURITY_WEB_PRESENT = ClassUtils
		.isPresent("org.springframework.security.web.csrf.CsrfToken", DashboardRoutes.class.getClassLoader());

	private static final int DEFAULT_PAGE = 20;

	private final RedisLockAdmin admin;

	private final String path;

	private final String role;

	private final boolean writeEnabled;

	private final Duration refreshInterval;

	private final boolean securityPresent;

	private final String page;

	private final Set<String> allowedHosts;

	/** This machine's names, looked up once. */
	private static final SingletonSupplier<Set<String>> LOCAL_NAMES = SingletonSupplier.of(DashboardRoutes::localNames);

	/**
	 * @param admin what the page shows and does
	 * @param path the page's path
	 * @param role the role a Spring Security user needs to write (without {@code ROLE_})
	 * @param writeEnabled whether to allow writes without Spring Security
	 * @param refreshInterval how often the page refreshes itself
	 * @param securityPresent whether Spring Security is on the class path (then it
	 * decides who may write)
	 * @param allowedHosts without Spring Security, the host names (besides IP addresses,
	 * {@code localhost} and this machine's names) that requests may name in their
	 * {@code Host}; {@code *} allows any
	 */
	public DashboardRoutes(RedisLockAdmin admin, String path, String role, boolean writeEnabled,
			Duration refreshInterval, boolean securityPresent, List<String> allowedHosts) {
		this.securityPresent = securityPresent;
		this.allowedHosts = allowedHosts.stream()
			.map((host) -> host.trim().toLowerCase(Locale.ROOT))
			.collect(Collectors.toUnmodifiableSet());
		this.admin = admin;
		this.path = path;
		this.role = role;
		this.writeEnabled = writeEnabled;
		this.refreshInterval = refreshInterval;
		this.page = asset("index.html");
	}

	/**
	 * Return the routes.
	 * @return the router function
	 */
	public RouterFunction<ServerResponse> routes() {
		String css = asset("dashboard.css");
		String js = asset("dashboard.js");
		return RouterFunctions.route()
			.GET(this.path, this::page)
			.GET(this.path + "/",
					(request) -> ServerResponse.status(HttpStatus.MOVED_PERMANENTLY)
						.location(URI.create(base(request)))
						.build())
			.GET(this.path + "/dashboard.css", (request) -> text(css, "text/css"))
			.GET(this.path + "/dashboard.js", (request) -> text(js, "text/javascript"))
			.GET(this.path + "/api/state", this::state)
			.GET(this.path + "/api/queue", this::queue)
			.GET(this.path + "/api/task", this::task)
			.GET(this.path + "/api/holder", this::holder)
			.POST(this.path + "/api/action", this::action)
			.onError(AdminRequestException.class,
					// Never null; NullAway sees only Throwable.getMessage().
					(error, request) -> problem(HttpStatus.BAD_REQUEST,
							Objects.requireNonNullElse(error.getMessage(), "Bad request")))
			.filter((request, next) -> {
				String refusal = hostRefusal(request.servletRequest());
				return (refusal != null) ? problem(HttpStatus.FORBIDDEN, refusal) : next.handle(request);
			})
			.build();
	}

	/**
	 * Without Spring Security (no session for a rebinding site to ride on, and maybe
	 * write-enabled), return why a request's {@code Host} is refused, or {@code null}:
	 * DNS rebinding points a site's name at this server, so the browser sends that name
	 * as the Host and the Origin, and a same-origin check passes. An IP address cannot be
	 * rebound; names must be known.
	 */
	private @Nullable String hostRefusal(HttpServletRequest request) {
		if (this.securityPresent || this.allowedHosts.contains("*")) {
			return null;
		}
		// Every name the request gives for the host must be known: the server name (which
		// forwarded headers may have set), the Host header as the browser sent it, and
		// each forwarded host (a rebound page can add those to its own requests).
		List<String> names = new java.util.ArrayList<>();
		names.add(request.getServerName());
		addHosts(names, request.getHeaders("Host"), false);
		addHosts(names, request.getHeaders("X-Forwarded-Host"), false);
		addHosts(names, request.getHeaders("Forwarded"), true);
		for (String name : names) {
			String host = name.toLowerCase(Locale.ROOT);
			if (!(host.startsWith("[") || host.equals("localhost") || isIpv4(host) || this.allowedHosts.contains(host)
					|| LOCAL_NAMES.obtain().contains(host))) {
				return "The dashboard answers only the host names it knows (DNS rebinding): '" + Printable.of(host)
						+ "' is not an IP address, localhost or this machine's name; add it to"
						+ " redislock.dashboard.allowed-hosts";
			}
		}
		return null;
	}

	/**
	 * Add the host names of header values: {@code host[:port]}, comma-separated, or
	 * {@code Forwarded} elements' {@code host=} parameters.
	 */
	private static void addHosts(List<String> names, @Nullable Enumeration<String> values, boolean forwarded) {
		if (values == null) {
			return;
		}
		while (values.hasMoreElements()) {
			for (String element : values.nextElement().split(",")) {
				String value = element.trim();
				if (forwarded) {
					value = "";
					for (String pair : element.split(";")) {
						String[] parts = pair.trim().split("=", 2);
						if (parts.length == 2 && parts[0].trim().equalsIgnoreCase("host")) {
							value = parts[1].trim().replace("\"", "");
						}
					}
				}
				if (!value.isEmpty()) {
					names.add(hostOf(value));
				}
			}
		}
	}

	/**
	 * The host of {@code host[:port]} ({@code [v6]:port} kept bracketed).
	 */
	private static String hostOf(String hostAndPort) {
		if (hostAndPort.startsWith("[")) {
			int end = hostAndPort.indexOf(']');
			return (end > 0) ? hostAndPort.substring(0, end + 1) : hostAndPort;
		}
		int colon = hostAndPort.lastIndexOf(':');
		return (colon >= 0) ? hostAndPort.substring(0, colon) : hostAndPort;
	}

	private static boolean isIpv4(String host) {
		return host.matches("\\d{1,3}(\\.\\d{1,3}){3}");
	}

	private static Set<String> localNames() {
		Set<String> names = new java.util.HashSet<>();
		try {
			java.net.InetAddress local = java.net.InetAddress.getLocalHost();
			names.add(local.getHostName().toLowerCase(Locale.ROOT));
			names.add(local.getCanonicalHostName().toLowerCase(Locale.ROOT));
		}
		catch (java.io.IOException ex) {
			// No name of its own: IP addresses, localhost and the allowed hosts only.
		}
		return names;
	}

	/**
	 * Return where the page is as the browser sees it: under the servlet context path.
	 */
	private String base(ServerRequest request) {
		return request.servletRequest().getContextPath() + this.path;
	}

	private ServerResponse page(ServerRequest request) {
		return ServerResponse.ok()
			.contentType(new MediaType(MediaType.TEXT_HTML, StandardCharsets.UTF_8))
			.cacheControl(CacheControl.noStore())
			.header("Content-Security-Policy",
					"default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; img-src 'self';"
							+ " form-action 'self'; frame-ancestors 'none'; base-uri 'none'")
			.header("X-Content-Type-Options", "nosniff")
			.header("Referrer-Policy", "no-referrer")
			.body(this.page.replace("{{base}}", HtmlUtils.htmlEscape(base(request))));
	}

	private static ServerResponse text(String body, String type) {
		return ServerResponse.ok()
			.contentType(new MediaType(MediaType.valueOf(type), StandardCharsets.UTF_8))
			.cacheControl(CacheControl.noCache())
			.header("X-Content-Type-Options", "nosniff")
			.body(body);
	}

	private ServerResponse state(ServerRequest request) {
		Map<String, Object> state = new LinkedHashMap<>();
		state.put("queues", this.admin.queues());
		List<LockView> locks = this.admin.heldLocks().stream().map(LockView::of).toList();
		state.put("locks", locks);
		state.put("canWrite", canWrite());
		state.put("refreshMillis", this.refreshInterval.toMillis());
		state.put("csrf", (this.securityPresent && SECURITY_WEB_PRESENT) ? Csrf.token(request.servletRequest()) : null);
		return json(state);
	}

	private ServerResponse queue(ServerRequest request) {
		RedisLockAdmin.QueueDetails details = this.admin.queue(request.param("name").orElse(null),
				count(request, "dead"), count(request, "upcoming"));
		Map<String, Object> view = new LinkedHashMap<>();
		view.put("summary", details.summary());
		view.put("deadLetters", details.deadLetters().stream().map(DeadLetterRow::of).toList());
		view.put("upcoming", details.upcoming().stream().map(UpcomingRow::of).toList());
		view.put("complete", details.complete());
		return json(view);
	}

	private ServerResponse task(ServerRequest request) {
		String queue = request.param("queue").orElse(null);
		String id = request.param("id").orElse(null);
		String state = request.param("state").orElse("");
		Optional<?> task = switch (state) {
			case "dead" -> this.admin.deadLetter(queue, id);
			case "waiting" -> this.admin.waitingTask(queue, id);
			default -> throw new AdminRequestException("'state' must be 'dead' or 'waiting'");
		};
		return task.<ServerResponse>map(DashboardRoutes::json)
			.orElseGet(() -> problem(HttpStatus.NOT_FOUND,
					state.equals("dead") ? "No such dead letter" : "No such waiting task"));
	}

	private ServerResponse holder(ServerRequest request) {
		String name = request.param("name").orElse(null);
		Optional<LockHolder> holder = this.admin.holder(name);
		Map<String, Object> found = new LinkedHashMap<>();
		found.put("name", name);
		found.put("holder", holder.orElse(null));
		found.put("leaseLeftMillis", holder.map((value) -> value.leaseLeft().toMillis()).orElse(0L));
		return json(found);
	}

	private ServerResponse action(ServerRequest request) {
		String refusal = refusal(request.servletRequest());
		if (refusal != null) {
			return problem(HttpStatus.FORBIDDEN, refusal);
		}
		Map<?, ?> body = actionBody(request);
		return json(QueueActions.run(this.admin, text(body, "queue"), text(body, "action"), text(body, "id")));
	}

	/**
	 * The action's JSON body: ids travel there rather than in the URL, so that any id
	 * that enqueue accepts (long, with control characters) can be acted on.
	 */
	private static Map<?, ?> actionBody(ServerRequest request) {
		try {
			return request.body(Map.class);
		}
		catch (Exception ex) {
			throw new AdminRequestException(
					"Send the action as a JSON object: {\"action\": ..., \"queue\": ..., \"id\": ...}");
		}
	}

	private static @Nullable String text(Map<?, ?> body, String name) {
		Object value = body.get(name);
		if (value != null && !(value instanceof String)) {
			throw new AdminRequestException("'" + name + "' must be a string");
		}
		return (String) value;
	}

	/**
	 * Return why a write request is refused, or {@code null} when it may go ahead.
	 */
	private @Nullable String refusal(HttpServletRequest request) {
		if (!"1".equals(request.getHeader(HEADER))) {
			return "Actions are taken from the dashboard page only (the " + HEADER + " header is missing)";
		}
		String fetchSite = request.getHeader("Sec-Fetch-Site");
		if (fetchSite != null && !fetchSite.equals("same-origin")) {
			return "Actions are taken from the dashboard page only (the request came from another site)";
		}
		String origin = request.getHeader("Origin");
		if (origin != null && !origin.equals(origin(request))) {
			return "Actions are taken from the dashboard page only (the request came from " + origin + ")";
		}
		if (!canWrite()) {
			return this.securityPresent ? "Actions need a signed-in user with the role " + this.role
					: "Actions are disabled: set redislock.dashboard.write-enabled=true, or add Spring Security and"
							+ " give operators the role " + this.role;
		}
		return null;
	}

	private static String origin(HttpServletRequest request) {
		int port = request.getServerPort();
		boolean defaultPort = ("http".equals(request.getScheme()) && port == 80)
				|| ("https".equals(request.getScheme()) && port == 443);
		return request.getScheme() + "://" + request.getServerName() + (defaultPort ? "" : ":" + port);
	}

	private boolean canWrite() {
		return this.securityPresent ? Roles.current(this.role) : this.writeEnabled;
	}

	private static int count(ServerRequest request, String name) {
		String text = request.param(name).orElse(null);
		if (text == null || text.isEmpty()) {
			return DEFAULT_PAGE;
		}
		try {
			return Integer.parseInt(text);
		}
		catch (NumberFormatException ex) {
			throw new AdminRequestException("'" + name + "' must be a whole number, is '"
					+ ((text.length() > 20) ? text.substring(0, 20) + "..." : text) + "'");
		}
	}

	private static ServerResponse json(Object body) {
		return ServerResponse.ok()
			.contentType(MediaType.APPLICATION_JSON)
			.cacheControl(CacheControl.noStore())
			.body(body);
	}

	private static ServerResponse problem(HttpStatus status, String message) {
		return ServerResponse.status(status).contentType(MediaType.APPLICATION_JSON).body(Map.of("error", message));
	}

	private static String asset(String name) {
		try {
			return new ClassPathResource(name, DashboardRoutes.class).getContentAsString(StandardCharsets.UTF_8);
		}
		catch (IOException ex) {
			throw new UncheckedIOException("The dashboard's " + name + " is missing from the jar", ex);
		}
	}

	/**
	 * A held lock as the page shows it.
	 */
	record LockView(String name, String kind, long heldMillis, long leaseLeftMillis, long fencingToken) {

		static LockView of(HeldLock lock) {
			return new LockView(lock.name(), lock.type(), lock.heldFor().toMillis(), lock.leaseLeft().toMillis(),
					lock.fencingToken());
		}

	}

	/**
	 * A dead letter as the page lists it: no payload (shown on demand), the error cut.
	 */
	record DeadLetterRow(String id, long diedAt, int attempts, String error, long errorBytes, long payloadBytes) {

		static DeadLetterRow of(DeadLetterPreview dead) {
			return new DeadLetterRow(dead.id(), dead.diedAt(), dead.attempts(), dead.error(), dead.errorBytes(),
					dead.payloadBytes());
		}

	}

	/**
	 * A delayed task as the page lists it: no payload (shown on demand).
	 */
	record UpcomingRow(String id, long dueAt, long payloadBytes) {

		static UpcomingRow of(TaskPreview task) {
			return new UpcomingRow(task.id(), task.dueAt(), task.payloadBytes());
		}

	}

	/**
	 * Return whether Spring Security is on the class path of a class loader.
	 * @param classLoader the application's class loader
	 * @return whether Spring Security decides who may write
	 */
	public static boolean isSecurityPresent(@Nullable ClassLoader classLoader) {
		return ClassUtils.isPresent("org.springframework.security.core.context.SecurityContextHolder", classLoader);
	}

	/**
	 * Spring Security's view of the current user; loaded only when it is on the class
	 * path.
	 */
	private static final class Roles {

		static boolean current(String role) {
			org.springframework.security.core.Authentication user = org.springframework.security.core.context.SecurityContextHolder
				.getContext()
				.getAuthentication();
			if (user == null || !user.isAuthenticated()
					|| user instanceof org.springframework.security.authentication.AnonymousAuthenticationToken) {
				return false;
			}
			String authority = "ROLE_" + role;
			return user.getAuthorities().stream().anyMatch((granted) -> authority.equals(granted.getAuthority()));
		}

	}

	/**
	 * Spring Security's CSRF token of the request, for the page to send with its actions;
	 * loaded only when Spring Security's web part is on the class path.
	 */
	private static final class Csrf {

		static @Nullable Map<String, String> token(HttpServletRequest request) {
			Object token = request.getAttribute(org.springframework.security.web.csrf.CsrfToken.class.getName());
			if (token instanceof org.springframework.security.web.csrf.CsrfToken csrf) {
				return Map.of("headerName", csrf.getHeaderName(), "token", csrf.getToken());
			}
			return null;
		}

	}

}
