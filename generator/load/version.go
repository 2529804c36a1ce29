package load

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
)

// APIVersion is the document's api-version: its info.version, the one
// source the generator reads it from (the resource tree, and the ranking
// of files by api-version, ReadAPIVersion). In azure-rest-api-specs it is
// the name of the file's folder except where the file describes another
// provider's operations: Network's vmssNetworkInterface.json in the
// 2024-01-01 folder has info.version 2018-10-01, the api-version its
// (Compute) operations take.
func (d *Document) APIVersion() string {
	if d.Swagger.Info == nil {
		return ""
	}
	return d.Swagger.Info.Version
}

// ReadAPIVersion returns info.version of the swagger file rel below root,
// as Document.APIVersion does, reading the file only up to its info
// member (it comes second in every Azure swagger) instead of loading it.
// "" with a nil error when the document has none.
func ReadAPIVersion(root, rel string) (string, error) {
	rel = cleanRel(rel)
	f, err := os.Open(filepath.Join(root, filepath.FromSlash(rel)))
	if err != nil {
		if os.IsNotExist(err) {
			return "", &Error{Origin: Origin{File: rel}, Msg: "file not found below spec root " + root}
		}
		return "", err
	}
	defer f.Close()
	dec := json.NewDecoder(f)
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return "", &Error{Origin: Origin{File: rel}, Msg: "not a JSON object"}
	}
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return "", &Error{Origin: Origin{File: rel}, Msg: fmt.Sprintf("reading info.version: %v", err)}
		}
		key, _ := t.(string)
		if key != "info" {
			var skip json.RawMessage
			if err := dec.Decode(&skip); err != nil {
				return "", &Error{Origin: Origin{File: rel, Pointer: "/" + escape(key)}, Msg: err.Error()}
			}
			continue
		}
		var info struct {
			Version string `json:"version"`
		}
		if err := dec.Decode(&info); err != nil && err != io.EOF {
			return "", &Error{Origin: Origin{File: rel, Pointer: "/info"}, Msg: err.Error()}
		}
		return info.Version, nil
	}
	return "", nil
}
