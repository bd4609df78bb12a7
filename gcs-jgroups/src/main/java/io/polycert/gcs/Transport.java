package io.polycert.gcs;

import io.polycert.core.group.MemberId;

/**
 * What the group engine needs from the network: reliable FIFO point-to-point messages, reliable FIFO
 * multicast to the current view (including the sender), and views. JGroups provides it; tests simulate it.
 */
interface Transport {

    MemberId self();

    void send(MemberId to, byte[] message);

    void multicast(byte[] message);

    /**
     * Asks the membership service to exclude a member of the current view as if it had failed (it comes back
     * through a merge). Only the coordinator's request is acted on.
     */
    void exclude(MemberId member);

    void close();

    /** Receives from the transport, on any thread. */
    interface Handler {
        void receive(MemberId from, byte[] message);

        void viewChanged(TransportView view);
    }
}
