package io.effonce.it.testutils;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/** The queries of deploy/grafana's dashboard: each panel target's PromQL or SQL. */
public record DashboardQueries(List<String> promQl, List<String> sql) {

    public static final Path DASHBOARD =
            Path.of("..", "deploy", "grafana", "effonce-dashboard.json");

    public static DashboardQueries read() throws IOException {
        JsonNode dashboard = new ObjectMapper().readTree(DASHBOARD.toFile());
        List<String> promQl = new ArrayList<>();
        List<String> sql = new ArrayList<>();
        for (JsonNode panel : dashboard.path("panels")) {
            for (JsonNode target : panel.path("targets")) {
                if (target.has("expr")) {
                    promQl.add(target.get("expr").asText());
                }
                if (target.has("rawSql")) {
                    sql.add(target.get("rawSql").asText());
                }
            }
        }
        return new DashboardQueries(promQl, sql);
    }
}
