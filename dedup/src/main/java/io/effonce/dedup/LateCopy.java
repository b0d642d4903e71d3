package io.effonce.dedup;

import java.util.Map;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.common.typeinfo.Types;

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
