package io.effonce.local.cli;

import java.util.concurrent.CountDownLatch;

/** Keeps a command's service running until the JVM is asked to stop (Ctrl-C), then closes it. */
final class UntilStopped {

    private UntilStopped() {}

    /** Closes {@code service} when the JVM stops; waits until then. */
    static void run(AutoCloseable service) throws InterruptedException {
        CountDownLatch stopped = new CountDownLatch(1);
        Runtime.getRuntime()
                .addShutdownHook(
                        new Thread(
                                () -> {
                                    try {
                                        service.close();
                                    } catch (Exception e) {
                                        System.err.println("Could not stop cleanly: " + e);
                                    }
                                    stopped.countDown();
                                }));
        stopped.await();
    }
}
