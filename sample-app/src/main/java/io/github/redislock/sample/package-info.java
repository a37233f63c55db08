/**
 * Sample application: a flash sale and a lottery on distributed locks and a task queue.
 */
package io.github.redislock.sample;
