/**
 * Sample application: stock sold under a distributed lock per item.
 */
package io.github.redislock.sample;
