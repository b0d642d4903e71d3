package io.effonce.sink;

import java.lang.reflect.Type;
import java.time.LocalDate;
import java.util.Map;
import org.apache.flink.annotation.PublicEvolving;
import org.apache.flink.api.common.typeinfo.TypeInfoFactory;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.common.typeinfo.Types;

/**
 * Gives a {@code LocalDate} field Flink's own date serializer. Without it Flink's type analysis
 * treats the field as a generic type and serializes it with Kryo, whose format a later release may
 * not read back from a savepoint. Use as {@code @TypeInfo(LocalDateTypeInfoFactory.class)} on a
 * {@code LocalDate} field of a key or value type the sink keeps in state.
 */
@PublicEvolving
public final class LocalDateTypeInfoFactory extends TypeInfoFactory<LocalDate> {

    @Override
    public TypeInformation<LocalDate> createTypeInfo(
            Type type, Map<String, TypeInformation<?>> genericParameters) {
        return Types.LOCAL_DATE;
    }
}
