module github.com/cairndb/cairn

go 1.25

require (
	github.com/stretchr/testify v1.12.1
	golang.org/x/sys v0.40.0
)

require go.yaml.in/yaml/v3 v3.0.5 // indirect
