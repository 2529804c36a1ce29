package metrics

import (
	"errors"

	"github.com/prometheus/client_golang/prometheus"
)

// Register registers cs with r. A collector r already holds (the same
// one, registered by an earlier call) is not an error; any other
// registration error, such as another collector of the same name, is
// returned and the remaining collectors are not registered.
func Register(r prometheus.Registerer, cs ...prometheus.Collector) error {
	for _, c := range cs {
		if err := r.Register(c); err != nil {
			var are prometheus.AlreadyRegisteredError
			if errors.As(err, &are) && are.ExistingCollector == c {
				continue
			}
			return err
		}
	}
	return nil
}
