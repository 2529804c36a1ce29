package conformance

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strings"

	"github.com/armature-dev/armature/runtime/descriptor"
)

// Answer is what the comparison looks at in one response.
type Answer struct {
	// Status is the HTTP status code.
	Status int `json:"status"`
	// LRO is the long-running-operation header style: "", "azure-async-operation",
	// "location" or "azure-async-operation+location".
	LRO string `json:"lro,omitempty"`
	// Code is the error code of an answer of 400 or more.
	Code string `json:"code,omitempty"`
	// Keys are, for a 200 with a JSON object body, its top-level keys and
	// properties.* keys whose values are not null, sorted.
	Keys []string `json:"keys,omitempty"`
	// Message is the error message of an answer of 400 or more: shown in
	// the JSON report to tell why, never compared.
	Message string `json:"message,omitempty"`
}

// answerOf reads what the comparison needs from a status, headers and
// body.
func answerOf(status int, h http.Header, body []byte) Answer {
	a := Answer{Status: status, LRO: lroStyle(h)}
	obj := object(body)
	if status >= 400 {
		a.Code, a.Message = errorCode(obj), errorMessage(obj)
	}
	if status == http.StatusOK && obj != nil {
		a.Keys = keys(obj)
	}
	return a
}

// lroStyle names the LRO headers present.
func lroStyle(h http.Header) string {
	var s []string
	if h.Get(headerAsync) != "" {
		s = append(s, viaAsync)
	}
	if h.Get(headerLocation) != "" {
		s = append(s, viaLocation)
	}
	return strings.Join(s, "+")
}

func object(body []byte) map[string]any {
	if len(bytes.TrimSpace(body)) == 0 {
		return nil
	}
	var obj map[string]any
	if json.Unmarshal(body, &obj) != nil {
		return nil
	}
	return obj
}

// errorCode is ARM's error.code, or App Service's top-level Code.
func errorCode(obj map[string]any) string {
	if e, ok := obj["error"].(map[string]any); ok {
		if c, ok := e["code"].(string); ok {
			return c
		}
	}
	if c, ok := obj["Code"].(string); ok {
		return c
	}
	return ""
}

// errorMessage is ARM's error.message, or App Service's top-level Message.
func errorMessage(obj map[string]any) string {
	if e, ok := obj["error"].(map[string]any); ok {
		if m, ok := e["message"].(string); ok {
			return m
		}
	}
	m, _ := obj["Message"].(string)
	return m
}

// keys lists the top-level and properties.* keys with non-null values.
func keys(obj map[string]any) []string {
	var out []string
	for k, v := range obj {
		if v == nil {
			continue
		}
		out = append(out, k)
		if k == "properties" {
			if p, ok := v.(map[string]any); ok {
				for pk, pv := range p {
					if pv != nil {
						out = append(out, "properties."+pk)
					}
				}
			}
		}
	}
	slices.Sort(out)
	return out
}

// compare returns why the emulator's answer differs from the recorded one
// ("" when they match). A Mutation compares the LRO header style too; keys
// match when every key the recording has is in the emulator's answer
// (a served api-version may add keys, and real ARM's own answers differ in
// keys with null values).
func compare(k Kind, want, got Answer) string {
	var why []string
	if want.Status != got.Status {
		why = append(why, fmt.Sprintf("status %d, recorded %d", got.Status, want.Status))
	}
	if k == Mutation && want.LRO != got.LRO {
		why = append(why, fmt.Sprintf("LRO headers %q, recorded %q", got.LRO, want.LRO))
	}
	if want.Code != got.Code && want.Status >= 400 {
		why = append(why, fmt.Sprintf("error code %q, recorded %q", got.Code, want.Code))
	}
	if missing := lacking(want, got); len(missing) > 0 {
		why = append(why, "body lacks "+strings.Join(missing, ", "))
	}
	return strings.Join(why, "; ")
}

// lacking is, when both answers are 200, the keys of the recorded body
// that the emulator's lacks.
func lacking(want, got Answer) []string {
	if want.Status != http.StatusOK || got.Status != http.StatusOK {
		return nil
	}
	var missing []string
	for _, key := range want.Keys {
		if _, ok := slices.BinarySearch(got.Keys, key); !ok {
			missing = append(missing, key)
		}
	}
	return missing
}

// members are, by lower-cased ARM type, the body keys (top-level and
// properties.*, as Answer.Keys) that some api-version of the type among
// descs defines.
func members(descs []*descriptor.Descriptor) map[string]map[string]bool {
	out := map[string]map[string]bool{}
	for _, d := range descs {
		t := strings.ToLower(d.ARMType)
		m := out[t]
		if m == nil {
			m = map[string]bool{}
			out[t] = m
		}
		for _, p := range d.Properties {
			if len(p.Path) == 0 {
				continue
			}
			m[p.Path[0]] = true
			if len(p.Path) > 1 && p.Path[0] == "properties" {
				m["properties."+p.Path[1]] = true
			}
		}
	}
	return out
}

// envelope are the keys ARM puts on every resource whether its schema
// says so or not.
var envelope = map[string]bool{"id": true, "name": true, "type": true, "location": true, "tags": true, "etag": true, "systemData": true, "properties": true}

// unknownMembers are the keys of missing that no api-version the
// emulator serves defines for the type (known): the recording's
// api-version is newer than the spec root's.
func unknownMembers(known map[string]bool, missing []string) []string {
	if known == nil {
		return nil
	}
	var out []string
	for _, k := range missing {
		if !known[k] && !envelope[k] {
			out = append(out, k)
		}
	}
	return out
}
