package io.effonce.testing;

import java.io.IOException;
import java.net.BindException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.FileSystemException;
import java.nio.file.Files;
import java.nio.file.Path;

/** A service that could not start, with what failed and why in words an operator can act on. */
public final class StartupFailure extends RuntimeException {

    private StartupFailure(String message, Throwable cause) {
        super(message, cause);
    }

    /**
     * Explains why {@code service} failed to start from the exception and the directory it used.
     */
    public static StartupFailure explain(String service, Path dataDir, Throwable cause) {
        return new StartupFailure(service + " did not start: " + reason(dataDir, cause), cause);
    }

    /** Fails at once, naming the port, when a fixed port is already taken on 127.0.0.1. */
    public static void requirePortFree(String service, int port) {
        if (port <= 0) {
            return;
        }
        try (ServerSocket socket = new ServerSocket(port, 1, InetAddress.getLoopbackAddress())) {
            socket.setReuseAddress(true);
        } catch (IOException e) {
            throw new StartupFailure(
                    service
                            + " did not start: port "
                            + port
                            + " on 127.0.0.1 is already in use; stop the process that holds it or"
                            + " choose another port",
                    e);
        }
    }

    private static String reason(Path dataDir, Throwable cause) {
        for (Throwable t = cause; t != null; t = t.getCause()) {
            String text = String.valueOf(t.getMessage());
            if (t instanceof BindException || text.contains("Address already in use")) {
                return "its port is already in use (" + text + ")";
            }
            if (text.contains("No space left on device") || lowDisk(dataDir)) {
                return "the disk holding " + dataDir + " is full; free some space and retry";
            }
            if (t instanceof FileSystemException || text.contains("Permission denied")) {
                return "it cannot write or unpack files under "
                        + dataDir
                        + " ("
                        + text
                        + "); check that the directory exists and is writable";
            }
            if (text.contains("xz") || text.contains("unpack") || text.contains("extract")) {
                return "its binaries could not be unpacked (" + text + ")";
            }
        }
        return String.valueOf(cause);
    }

    private static boolean lowDisk(Path dataDir) {
        try {
            Path existing = dataDir;
            while (existing != null && !Files.exists(existing)) {
                existing = existing.getParent();
            }
            return existing != null && Files.getFileStore(existing).getUsableSpace() < 64L << 20;
        } catch (IOException e) {
            return false;
        }
    }
}
