package io.effonce.dedup;

import static org.assertj.core.api.Assertions.assertThat;

import org.apache.flink.runtime.throwable.ThrowableClassifier;
import org.apache.flink.runtime.throwable.ThrowableType;
import org.junit.jupiter.api.Test;

class SettingChangedExceptionTest {

    @Test
    void theRefusalIsNotRetriedByFlink() {
        assertThat(
                        ThrowableClassifier.getThrowableType(
                                new SettingChangedException("o", "1", "2", "why.")))
                .isEqualTo(ThrowableType.NonRecoverableError);
    }
}
