package io.github.redislock.test;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.security.cert.CertificateFactory;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManagerFactory;

import io.lettuce.core.ClientOptions;
import io.lettuce.core.SslOptions;
import io.lettuce.core.cluster.ClusterClientOptions;

import org.springframework.util.FileSystemUtils;

/**
 * A throw-away certificate authority and a server certificate it signed (for
 * {@code 127.0.0.1} and {@code localhost}), made with {@code openssl} in a temporary
 * directory when a test asks for them and deleted when closed: no key is ever committed.
 * The server certificate also serves as the client certificate that cluster nodes and
 * replicas present to each other.
 */
public final class TestCertificates implements AutoCloseable {

	private static final String BUNDLE = "redislock-test";

	private final Path directory;

	private TestCertificates(Path directory) {
		this.directory = directory;
	}

	/**
	 * Make a new CA and server certificate (two RSA keys: about a second).
	 */
	public static TestCertificates create() {
		Path directory;
		try {
			directory = Files.createTempDirectory("redislock-test-tls-");
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
		try {
			Files.writeString(directory.resolve("server.ext"),
					String.join("\n", "subjectAltName=IP:127.0.0.1,DNS:localhost", "basicConstraints=CA:FALSE",
							"keyUsage=critical,digitalSignature,keyEncipherment",
							"extendedKeyUsage=serverAuth,clientAuth", ""));
			openssl(directory, "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "2", "-subj",
					"/CN=redislock throw-away test CA", "-addext", "basicConstraints=critical,CA:TRUE", "-addext",
					"keyUsage=critical,keyCertSign,cRLSign", "-keyout", "ca.key", "-out", "ca.crt");
			openssl(directory, "req", "-newkey", "rsa:2048", "-nodes", "-subj", "/CN=localhost", "-keyout",
					"server.key", "-out", "server.csr");
			openssl(directory, "x509", "-req", "-in", "server.csr", "-CA", "ca.crt", "-CAkey", "ca.key",
					"-CAcreateserial", "-days", "2", "-extfile", "server.ext", "-out", "server.crt");
			return new TestCertificates(directory);
		}
		catch (IOException ex) {
			FileSystemUtils.deleteRecursively(directory.toFile());
			throw new UncheckedIOException(ex);
		}
		catch (RuntimeException ex) {
			FileSystemUtils.deleteRecursively(directory.toFile());
			throw ex;
		}
	}

	private static void openssl(Path directory, String... arguments) {
		List<String> command = new ArrayList<>();
		command.add("openssl");
		command.addAll(List.of(arguments));
		Path log = directory.resolve("openssl.log");
		try {
			Process process = new ProcessBuilder(command).directory(directory.toFile())
				.redirectErrorStream(true)
				.redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile()))
				.start();
			if (!process.waitFor(60, TimeUnit.SECONDS)) {
				process.destroyForcibly();
				throw new IllegalStateException("openssl did not finish within 60 s: " + command);
			}
			if (process.exitValue() != 0) {
				throw new IllegalStateException(
						"openssl failed (" + process.exitValue() + "): " + command + "\n" + Files.readString(log));
			}
		}
		catch (IOException ex) {
			throw new IllegalStateException("Tests over TLS need openssl on the PATH (Debian: apt-get install -y"
					+ " openssl) to make their throw-away certificates", ex);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new IllegalStateException("Interrupted while running openssl", ex);
		}
	}

	/**
	 * Return the CA certificate (PEM): what clients trust.
	 */
	public Path caCertificate() {
		return this.directory.resolve("ca.crt");
	}

	public Path serverCertificate() {
		return this.directory.resolve("server.crt");
	}

	public Path serverKey() {
		return this.directory.resolve("server.key");
	}

	/**
	 * Return the {@code redis-server} arguments that turn TLS on with these files,
	 * clients not asked for a certificate. The port arguments are the caller's.
	 */
	public List<String> serverArguments() {
		return List.of("--tls-cert-file", serverCertificate().toString(), "--tls-key-file", serverKey().toString(),
				"--tls-ca-cert-file", caCertificate().toString(), "--tls-auth-clients", "no");
	}

	/**
	 * Return the name of the Spring Boot SSL bundle that
	 * {@link #springBundleProperties()} defines.
	 */
	public String bundleName() {
		return BUNDLE;
	}

	/**
	 * Return the Spring Boot properties of a PEM SSL bundle that trusts this CA.
	 */
	public String[] springBundleProperties() {
		return new String[] { "spring.ssl.bundle.pem." + BUNDLE + ".truststore.certificate=file:"
				+ caCertificate().toAbsolutePath() };
	}

	/**
	 * Return a trust manager factory that trusts this CA only.
	 */
	public TrustManagerFactory trustManagerFactory() {
		try (InputStream in = Files.newInputStream(caCertificate())) {
			KeyStore store = KeyStore.getInstance(KeyStore.getDefaultType());
			store.load(null, null);
			store.setCertificateEntry("ca", CertificateFactory.getInstance("X.509").generateCertificate(in));
			TrustManagerFactory factory = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
			factory.init(store);
			return factory;
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
		catch (GeneralSecurityException ex) {
			throw new IllegalStateException("Cannot read " + caCertificate(), ex);
		}
	}

	/**
	 * Return an SSL context that trusts this CA only.
	 */
	public SSLContext sslContext() {
		try {
			SSLContext context = SSLContext.getInstance("TLS");
			context.init(null, trustManagerFactory().getTrustManagers(), null);
			return context;
		}
		catch (GeneralSecurityException ex) {
			throw new IllegalStateException(ex);
		}
	}

	/**
	 * Return Lettuce options for TLS connections that trust this CA.
	 */
	public SslOptions sslOptions() {
		return SslOptions.builder().jdkSslProvider().trustManager(trustManagerFactory()).build();
	}

	public ClientOptions clientOptions() {
		return ClientOptions.builder().sslOptions(sslOptions()).build();
	}

	public ClusterClientOptions clusterClientOptions() {
		return ClusterClientOptions.builder().sslOptions(sslOptions()).build();
	}

	@Override
	public void close() {
		FileSystemUtils.deleteRecursively(this.directory.toFile());
	}

}
