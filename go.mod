module github.com/cairndb/cairn

go 1.25.0

require (
	github.com/creack/pty v1.1.24
	github.com/hashicorp/go-hclog v1.6.3
	github.com/hashicorp/raft v1.8.0
	github.com/peterh/liner v1.2.2
	github.com/sqlc-dev/meyer v0.1.2
	github.com/stretchr/testify v1.12.1
	golang.org/x/sys v0.47.0
	golang.org/x/term v0.39.0
)

require (
	github.com/fatih/color v1.13.0 // indirect
	github.com/hashicorp/go-immutable-radix v1.3.1 // indirect
	github.com/hashicorp/go-metrics v0.7.0 // indirect
	github.com/hashicorp/go-msgpack/v2 v2.1.5 // indirect
	github.com/hashicorp/golang-lru v1.0.2 // indirect
	github.com/mattn/go-colorable v0.1.12 // indirect
	github.com/mattn/go-isatty v0.0.14 // indirect
	github.com/mattn/go-runewidth v0.0.3 // indirect
	go.yaml.in/yaml/v3 v3.0.5 // indirect
)
