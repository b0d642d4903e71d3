package io.effonce.testing.workload;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import org.junit.jupiter.api.Test;

class WorkloadOptionsTest {

    @Test
    void wrongValuesAreRefusedWithAHint() {
        assertThatThrownBy(() -> WorkloadOptions.builder().rate(-1).build())
                .hasMessageContaining("0 = as fast as possible");
        assertThatThrownBy(() -> WorkloadOptions.builder().currencies(List.of("eur")).build())
                .hasMessageContaining("'eur' is not a 3-letter upper-case ISO 4217 code");
        assertThatThrownBy(() -> WorkloadOptions.builder().scope("a:b").build())
                .hasMessageContaining("without ':'");
        assertThatThrownBy(() -> WorkloadOptions.builder().batchSize(0).build())
                .hasMessageContaining("batch size must be >= 1");
        assertThatThrownBy(() -> WorkloadOptions.builder().merchants(0).build())
                .hasMessageContaining("merchants must be >= 1");
    }
}
