package io.effonce.job.decode;

import java.io.IOException;
import java.lang.reflect.Type;
import java.nio.charset.StandardCharsets;
import java.time.LocalDate;
import java.util.Map;
import org.apache.flink.api.common.serialization.SerializerConfig;
import org.apache.flink.api.common.typeinfo.TypeInfoFactory;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.common.typeutils.SimpleTypeSerializerSnapshot;
import org.apache.flink.api.common.typeutils.TypeSerializer;
import org.apache.flink.api.common.typeutils.TypeSerializerSnapshot;
import org.apache.flink.api.common.typeutils.base.TypeSerializerSingleton;
import org.apache.flink.core.memory.DataInputView;
import org.apache.flink.core.memory.DataOutputView;
import org.apache.flink.types.StringValue;

/**
 * {@link PaymentChange} on the wire: every counted change crosses two shuffles, and it is never
 * kept in state, so its format is free. Written field by field, without the reflection of Flink's
 * POJO serializer; a string of ASCII characters (ids, currency, state and topic, in practice) as
 * its bytes, any other string in Flink's own string format, so every string survives exactly.
 */
public final class PaymentChangeSerializer extends TypeSerializerSingleton<PaymentChange> {

    private static final long serialVersionUID = 1L;

    public static final PaymentChangeSerializer INSTANCE = new PaymentChangeSerializer();

    /** Length markers of a string: its ASCII length, or one of these. */
    private static final int NULL = -1;

    private static final int NOT_ASCII = -2;

    @Override
    public boolean isImmutableType() {
        return true;
    }

    @Override
    public PaymentChange createInstance() {
        return null; // immutable: nothing to reuse
    }

    @Override
    public PaymentChange copy(PaymentChange from) {
        return from;
    }

    @Override
    public PaymentChange copy(PaymentChange from, PaymentChange reuse) {
        return from;
    }

    @Override
    public int getLength() {
        return -1;
    }

    @Override
    public void serialize(PaymentChange c, DataOutputView out) throws IOException {
        writeString(c.paymentId(), out);
        writeString(c.merchantId(), out);
        out.writeLong(c.amount());
        writeString(c.currency(), out);
        writeString(c.state(), out);
        out.writeLong(c.eventTimeMillis());
        out.writeLong(c.day().toEpochDay());
        writeString(c.topic(), out);
        out.writeInt(c.partition());
        out.writeLong(c.offset());
    }

    @Override
    public PaymentChange deserialize(DataInputView in) throws IOException {
        return new PaymentChange(
                readString(in),
                readString(in),
                in.readLong(),
                readString(in),
                readString(in),
                in.readLong(),
                LocalDate.ofEpochDay(in.readLong()),
                readString(in),
                in.readInt(),
                in.readLong());
    }

    @Override
    public PaymentChange deserialize(PaymentChange reuse, DataInputView in) throws IOException {
        return deserialize(in);
    }

    @Override
    public void copy(DataInputView in, DataOutputView out) throws IOException {
        serialize(deserialize(in), out);
    }

    @Override
    public TypeSerializerSnapshot<PaymentChange> snapshotConfiguration() {
        return new Snapshot();
    }

    static void writeString(String s, DataOutputView out) throws IOException {
        if (s == null) {
            out.writeInt(NULL);
        } else if (isAscii(s)) {
            out.writeInt(s.length());
            out.write(s.getBytes(StandardCharsets.ISO_8859_1));
        } else {
            out.writeInt(NOT_ASCII);
            StringValue.writeString(s, out);
        }
    }

    static String readString(DataInputView in) throws IOException {
        int length = in.readInt();
        if (length == NULL) {
            return null;
        }
        if (length == NOT_ASCII) {
            return StringValue.readString(in);
        }
        byte[] bytes = new byte[length];
        in.readFully(bytes);
        return new String(bytes, StandardCharsets.ISO_8859_1);
    }

    private static boolean isAscii(String s) {
        for (int i = 0; i < s.length(); i++) {
            if (s.charAt(i) >= 0x80) {
                return false;
            }
        }
        return true;
    }

    /** Restores the serializer; the format has one version. */
    public static final class Snapshot extends SimpleTypeSerializerSnapshot<PaymentChange> {
        public Snapshot() {
            super(() -> INSTANCE);
        }
    }

    /**
     * Gives {@code PaymentChange} this serializer:
     * {@code @TypeInfo(PaymentChangeSerializer.Factory.class)}.
     */
    public static final class Factory extends TypeInfoFactory<PaymentChange> {
        @Override
        public TypeInformation<PaymentChange> createTypeInfo(
                Type type, Map<String, TypeInformation<?>> genericParameters) {
            return new Info();
        }
    }

    /** The type information of a change: one opaque field, this serializer. */
    static final class Info extends TypeInformation<PaymentChange> {
        private static final long serialVersionUID = 1L;

        @Override
        public boolean isBasicType() {
            return false;
        }

        @Override
        public boolean isTupleType() {
            return false;
        }

        @Override
        public int getArity() {
            return 1;
        }

        @Override
        public int getTotalFields() {
            return 1;
        }

        @Override
        public Class<PaymentChange> getTypeClass() {
            return PaymentChange.class;
        }

        @Override
        public boolean isKeyType() {
            return false;
        }

        @Override
        public TypeSerializer<PaymentChange> createSerializer(SerializerConfig config) {
            return INSTANCE;
        }

        @Override
        public String toString() {
            return "PaymentChange";
        }

        @Override
        public boolean equals(Object o) {
            return o instanceof Info;
        }

        @Override
        public int hashCode() {
            return Info.class.hashCode();
        }

        @Override
        public boolean canEqual(Object o) {
            return o instanceof Info;
        }
    }
}
