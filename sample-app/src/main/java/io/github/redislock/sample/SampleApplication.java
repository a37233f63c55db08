package io.github.redislock.sample;

import java.util.Arrays;

import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.scheduling.annotation.EnableScheduling;

/**
 * Sample application of the redis-lock starter: a flash sale that never oversells, with
 * orders fulfilled through a task queue, and a noon lottery drawn once across instances.
 */
@SpringBootApplication
@EnableScheduling
public class SampleApplication {

	public static void main(String[] args) throws Exception {
		if (Arrays.asList(args).contains("--demo")) {
			Demo.main(args);
			return;
		}
		SpringApplication application = new SpringApplication(SampleApplication.class);
		application.addListeners(new EmbeddedRedisFallback());
		application.run(args);
	}

}
