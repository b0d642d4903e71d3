package io.effonce.cluster;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.ServerSocket;
import java.util.ArrayList;
import java.util.List;

/** Free TCP ports on this host, for a cluster's processes to bind. */
final class FreePorts {

    private FreePorts() {}

    /**
     * {@code n} distinct free ports, all held open while they are chosen: two ports picked one
     * after the other can be the same one, and a JobManager whose REST and RPC ports collide
     * answers REST calls with its RPC protocol (seen once: "header parser received no bytes" for 3
     * minutes).
     */
    static int[] take(int n) {
        List<ServerSocket> sockets = new ArrayList<>();
        try {
            int[] ports = new int[n];
            for (int i = 0; i < n; i++) {
                ServerSocket socket = new ServerSocket(0);
                sockets.add(socket);
                ports[i] = socket.getLocalPort();
            }
            return ports;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } finally {
            for (ServerSocket socket : sockets) {
                try {
                    socket.close();
                } catch (IOException ignored) {
                    // only probing
                }
            }
        }
    }
}
