/**
 * Each feature in its smallest form, one class each, with a test in
 * {@code ExamplesTests}.
 */
package io.github.redislock.sample.examples;
