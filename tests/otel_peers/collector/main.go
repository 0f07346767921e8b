// SPDX-License-Identifier: MIT

// Command libmcp-test-otelcol is the smallest OpenTelemetry Collector the
// libmcp tests need (issue #26 item 5): the core distribution's OTLP
// receiver and debug exporter, nothing else. tests/otel_peers builds it
// from the Go module proxy into the build tree; collector_test.sh starts it
// on 127.0.0.1 and reads what the debug exporter writes.
package main

import (
	"context"
	"fmt"
	"os"

	"go.opentelemetry.io/collector/component"
	"go.opentelemetry.io/collector/confmap"
	"go.opentelemetry.io/collector/confmap/provider/fileprovider"
	"go.opentelemetry.io/collector/exporter"
	"go.opentelemetry.io/collector/exporter/debugexporter"
	"go.opentelemetry.io/collector/otelcol"
	"go.opentelemetry.io/collector/receiver"
	"go.opentelemetry.io/collector/receiver/otlpreceiver"
	"go.opentelemetry.io/collector/service/telemetry"
	"go.uber.org/zap"
)

// telemetryConfig is the "service::telemetry" section: nothing to set. The
// collector's own telemetry is a logger on stderr and no-op meter and
// tracer providers, instead of the core distribution's otelconftelemetry,
// whose cloud resource detectors (AWS, GCP, Kubernetes clients) would more
// than double what the test has to compile.
type telemetryConfig struct{}

func newTelemetryFactory() telemetry.Factory {
	return telemetry.NewFactory(
		func() component.Config { return &telemetryConfig{} },
		telemetry.WithCreateLogger(func(_ context.Context, set telemetry.LoggerSettings, _ component.Config) (*zap.Logger, component.ShutdownFunc, error) {
			config := zap.NewProductionConfig()
			config.Encoding = "console"
			build := set.BuildZapLogger
			if build == nil {
				build = func(c zap.Config, o ...zap.Option) (*zap.Logger, error) { return c.Build(o...) }
			}
			logger, err := build(config)
			return logger, nil, err
		}))
}

// factories lists the only components a configuration may name.
func factories() (otelcol.Factories, error) {
	receivers, err := otelcol.MakeFactoryMap[receiver.Factory](otlpreceiver.NewFactory())
	if err != nil {
		return otelcol.Factories{}, err
	}
	exporters, err := otelcol.MakeFactoryMap[exporter.Factory](debugexporter.NewFactory())
	if err != nil {
		return otelcol.Factories{}, err
	}
	return otelcol.Factories{
		Receivers: receivers,
		Exporters: exporters,
		Telemetry: newTelemetryFactory(),
	}, nil
}

func main() {
	settings := otelcol.CollectorSettings{
		BuildInfo: component.BuildInfo{
			Command:     "libmcp-test-otelcol",
			Description: "OTLP receiver and debug exporter, for the libmcp tests",
			Version:     "test",
		},
		Factories: factories,
		ConfigProviderSettings: otelcol.ConfigProviderSettings{
			ResolverSettings: confmap.ResolverSettings{
				ProviderFactories: []confmap.ProviderFactory{fileprovider.NewFactory()},
				DefaultScheme:     "file",
			},
		},
	}
	if err := otelcol.NewCommand(settings).Execute(); err != nil {
		fmt.Fprintln(os.Stderr, "libmcp-test-otelcol:", err)
		os.Exit(1)
	}
}
