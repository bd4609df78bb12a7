package io.polycert.gcs;

import java.io.DataInput;
import java.io.DataOutput;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;
import org.jgroups.Message;
import org.jgroups.auth.AuthToken;

/**
 * JGroups AUTH token proving knowledge of the cluster secret without sending it: an HMAC-SHA256 of a fixed label
 * under a key derived from the secret. A member without the secret cannot produce it, so the coordinator rejects
 * its join. (Messages themselves are protected by SYM_ENCRYPT with another key derived from the same secret.)
 */
public final class SharedSecretToken extends AuthToken {
    private static final byte[] LABEL = "polycert-join-v1".getBytes(StandardCharsets.UTF_8);
    private byte[] proof = new byte[0];

    /** Required by JGroups to read tokens off the wire. */
    public SharedSecretToken() {
    }

    SharedSecretToken(byte[] authKey) {
        try {
            Mac mac = Mac.getInstance("HmacSHA256");
            mac.init(new SecretKeySpec(authKey, "HmacSHA256"));
            this.proof = mac.doFinal(LABEL);
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("HmacSHA256 unavailable", e);
        }
    }

    @Override
    public String getName() {
        return SharedSecretToken.class.getName();
    }

    @Override
    public int size() {
        return 4 + proof.length;
    }

    @Override
    public boolean authenticate(AuthToken token, Message msg) {
        return token instanceof SharedSecretToken other && proof.length > 0
                && MessageDigest.isEqual(proof, other.proof);
    }

    @Override
    public void writeTo(DataOutput out) throws IOException {
        out.writeInt(proof.length);
        out.write(proof);
    }

    @Override
    public void readFrom(DataInput in) throws IOException {
        int n = in.readInt();
        if (n < 0 || n > 64) {
            throw new IOException("bad token length " + n);
        }
        proof = new byte[n];
        in.readFully(proof);
    }
}
