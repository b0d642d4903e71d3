package io.effonce.dedup;

import java.util.Map;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.util.OutputTag;

/**
 * A copy that arrived too late to be deduplicated safely: {@code eventTime + horizon <= max(floor,
 * watermark)}. Its original's ID may already be forgotten, so the operator neither passes nor drops
 * it: it goes to the late side output for a batch recount, and dedup state is left untouched.
 *
 * @param record the late record, unchanged
 * @param eventTime the record's event time (its stream record timestamp)
 * @param watermark the operator's live watermark when the copy was judged
 * @param floor the watermark floor when the copy was judged ({@code Long.MIN_VALUE} if none)
 */
public record LateCopy<T>(T record, long eventTime, long watermark, long floor) {

    /** Id of the late side output; {@link OutputTag}s are equal when their ids are. */
    public static final String TAG_ID = "effonce-dedup-late";

    /** The tag of the side output that late copies of records of {@code recordType} go to. */
    public static <T> OutputTag<LateCopy<T>> tag(TypeInformation<T> recordType) {
        return new OutputTag<>(TAG_ID, typeInfo(recordType));
    }

    /** Flink type information for late copies of records of the given type (a POJO type). */
    @SuppressWarnings({"unchecked", "rawtypes"})
    public static <T> TypeInformation<LateCopy<T>> typeInfo(TypeInformation<T> recordType) {
        return (TypeInformation)
                Types.POJO(
                        LateCopy.class,
                        Map.of(
                                "record", recordType,
                                "eventTime", Types.LONG,
                                "watermark", Types.LONG,
                                "floor", Types.LONG));
    }
}
