module github.com/cairndb/cairn/compat/sqlx

go 1.25.0

replace github.com/cairndb/cairn => ../..

require (
	github.com/cairndb/cairn v0.0.0-00010101000000-000000000000
	github.com/jmoiron/sqlx v1.4.0
	github.com/stretchr/testify v1.12.1
)

require (
	github.com/sqlc-dev/meyer v0.1.2 // indirect
	go.yaml.in/yaml/v3 v3.0.5 // indirect
	golang.org/x/sys v0.47.0 // indirect
)
