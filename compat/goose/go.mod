module github.com/cairndb/cairn/compat/goose

go 1.26.0

replace github.com/cairndb/cairn => ../..

require (
	github.com/cairndb/cairn v0.0.0-00010101000000-000000000000
	github.com/pressly/goose/v3 v3.30.0
	github.com/stretchr/testify v1.12.1
)

require (
	github.com/mfridman/interpolate v0.0.2 // indirect
	github.com/sethvargo/go-retry v0.5.0 // indirect
	github.com/sqlc-dev/meyer v0.1.2 // indirect
	go.uber.org/multierr v1.11.0 // indirect
	go.yaml.in/yaml/v3 v3.0.6 // indirect
	golang.org/x/sync v0.25.0 // indirect
	golang.org/x/sys v0.50.0 // indirect
)
