package io.github.redislock.internal.queue;

import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.Executor;

import org.jspecify.annotations.Nullable;

import org.springframework.core.task.SyncTaskExecutor;
import org.springframework.data.redis.connection.Message;
import org.springframework.data.redis.connection.MessageListener;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.connection.SubscriptionListener;
import org.springframework.data.redis.listener.ChannelTopic;
import org.springframework.data.redis.listener.RedisMessageListenerContainer;
import org.springframework.util.backoff.BackOffExecution;

/**
 * A subscription made by Spring Data's container.
 */
final class ContainerNotificationSubscription implements NotificationSubscription {

	private final RedisMessageListenerContainer container;

	private ContainerNotificationSubscription(RedisMessageListenerContainer container) {
		this.container = container;
	}

	static NotificationSubscription open(RedisConnectionFactory connectionFactory, List<String> channels,
			Listener listener, Executor listeningThreads) {
		RedisMessageListenerContainer container = new RedisMessageListenerContainer();
		ContainerNotificationSubscription subscription = new ContainerNotificationSubscription(container);
		container.setConnectionFactory(connectionFactory);
		container.setTaskExecutor(new SyncTaskExecutor());
		// Not the synchronous one: a client whose subscription blocks its thread
		// (Jedis) would block the start, which waits for the subscription, for good.
		container.setSubscriptionExecutor(listeningThreads);
		// A first subscription that fails is not retried by the container (it would
		// retry forever on the calling thread): the caller asks again. Nor is one
		// that was made and then lost its connection (a client that does not
		// reconnect by itself: Jedis): it is given up.
		container.setRecoveryBackoff(() -> () -> {
			listener.lost(subscription);
			return BackOffExecution.STOP;
		});
		container.addMessageListener(new Adapter(listener), channels.stream().map(ChannelTopic::new).toList());
		container.afterPropertiesSet();
		try {
			container.start();
			return subscription;
		}
		catch (RuntimeException ex) {
			try {
				container.destroy();
			}
			catch (Exception closing) {
				ex.addSuppressed(closing);
			}
			throw ex;
		}
	}

	/**
	 * Closes by unsubscribing: a connection found deaf is released when that is answered
	 * or when TCP gives it up (on Jedis its listening thread ends then too), not at once.
	 * Call it where waiting does no harm.
	 */
	@Override
	public void close() {
		try {
			this.container.destroy();
		}
		catch (Exception ex) {
			// Closing anyway.
		}
	}

	private record Adapter(Listener listener) implements MessageListener, SubscriptionListener {

		@Override
		public void onMessage(Message message, byte @Nullable [] pattern) {
			this.listener.message(new String(message.getChannel(), StandardCharsets.UTF_8), message.getBody());
		}

		@Override
		public void onChannelSubscribed(byte[] channel, long count) {
			this.listener.subscribed(new String(channel, StandardCharsets.UTF_8));
		}

	}

}
