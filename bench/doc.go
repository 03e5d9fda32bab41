// Package bench compares cairn with SQLite, bbolt and Pebble under the same workloads and durability.
package bench
