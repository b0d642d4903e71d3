package io.effonce.cluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class JsonTest {

    @Test
    void readsFlinkCheckpointStatistics() {
        String answer =
                "{\"counts\":{\"restored\":1,\"total\":7,\"in_progress\":1,\"completed\":5,\"failed\":1},"
                        + "\"latest\":{\"completed\":{\"id\":6,\"external_path\":\"file:/c/chk-6\"},"
                        + "\"savepoint\":null,\"failure\":null,"
                        + "\"restored\":{\"id\":4,\"is_savepoint\":false,\"external_path\":\"file:/c/chk-4\"}},"
                        + "\"history\":[{\"id\":7,\"status\":\"IN_PROGRESS\"},{\"id\":6,\"status\":\"COMPLETED\"}]}";
        Map<String, Object> json = Json.parseObject(answer);
        CheckpointStats stats = CheckpointStats.fromJson(json);

        assertThat(stats.checkpointInProgress()).isTrue();
        assertThat(stats.completed()).isEqualTo(5);
        assertThat(stats.latestCompletedId()).isEqualTo(6);
        assertThat(stats.latestRestoredId()).isEqualTo(4);
        assertThat(stats.latestRestoredPath()).isEqualTo("file:/c/chk-4");
        assertThat(stats.hasRestored()).isTrue();
        assertThat(CheckpointStats.inProgressIds(json)).containsExactly(7L);
    }

    @Test
    void aJobThatNeverRestoredHasNoRestoredCheckpoint() {
        CheckpointStats stats =
                CheckpointStats.fromJson(
                        Json.parseObject(
                                "{\"counts\":{\"completed\":0},\"latest\":{\"restored\":null}}"));
        assertThat(stats.hasRestored()).isFalse();
        assertThat(stats.latestCompletedId()).isEqualTo(-1);
    }

    @Test
    void writesRequestsThatReadBack() {
        Map<String, Object> request = new LinkedHashMap<>();
        request.put("entryClass", "a.B");
        request.put("programArgsList", List.of("--x", "quote\" and \\ and\nnewline"));
        request.put("parallelism", 2);
        request.put("allowNonRestoredState", false);
        request.put("savepointPath", null);

        Object back = Json.parse(Json.write(request));

        assertThat(Json.at(back, "entryClass")).isEqualTo("a.B");
        assertThat(Json.at(back, "programArgsList"))
                .isEqualTo(List.of("--x", "quote\" and \\ and\nnewline"));
        assertThat(Json.at(back, "parallelism")).isEqualTo(2L);
        assertThat(Json.at(back, "allowNonRestoredState")).isEqualTo(false);
        assertThat(Json.parseObject(Json.write(request)))
                .containsEntry("savepointPath", null)
                .hasSize(5);
    }

    @Test
    void rejectsTrailingGarbage() {
        assertThatThrownBy(() -> Json.parse("{} x")).isInstanceOf(IllegalArgumentException.class);
    }
}
