package main

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
)

func fetchBody(o options, part string, offset int64) []byte {
	b, _ := json.Marshal(map[string]any{"entries": []map[string]any{
		{"queue": o.queue, "partition": part, "offset": offset, "maxBytes": o.batch * o.size}}})
	return b
}

// fetch sends one fetch and returns how many records it read. A partition
// that does not exist yet reads as empty.
func fetch(ctx context.Context, client *http.Client, url string, body []byte) (int, error) {
	a, err := send(ctx, client, url+"/api/v1/fetch", body)
	if err != nil {
		return 0, err
	}
	var out struct {
		Entries []struct {
			Records []json.RawMessage `json:"records"`
			Error   string            `json:"error"`
		} `json:"entries"`
	}
	if err := json.Unmarshal(a.body, &out); err != nil || len(out.Entries) != 1 {
		return 0, fmt.Errorf("fetch answered %.200s", a.body)
	}
	if e := out.Entries[0].Error; e != "" && e != "UNKNOWN_TOPIC_OR_PARTITION" {
		return 0, fmt.Errorf("fetch: %s", e)
	}
	return len(out.Entries[0].Records), nil
}
