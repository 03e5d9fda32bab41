module github.com/cairndb/cairn

go 1.25

require (
	github.com/creack/pty v1.1.24
	github.com/peterh/liner v1.2.2
	github.com/sqlc-dev/meyer v0.1.2
	github.com/stretchr/testify v1.12.1
	golang.org/x/sys v0.40.0
	golang.org/x/term v0.39.0
)

require (
	github.com/mattn/go-runewidth v0.0.3 // indirect
	go.yaml.in/yaml/v3 v3.0.5 // indirect
)
