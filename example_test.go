package cairn_test

import (
	"errors"
	"fmt"
	"log"
	"os"
	"path/filepath"

	"github.com/cairndb/cairn"
)

func tempDB() (*cairn.DB, func()) {
	dir, err := os.MkdirTemp("", "cairn-example")
	if err != nil {
		log.Fatal(err)
	}
	db, err := cairn.Open(filepath.Join(dir, "example.db"), nil)
	if err != nil {
		log.Fatal(err)
	}
	return db, func() { db.Close(); os.RemoveAll(dir) }
}

func Example() {
	db, done := tempDB()
	defer done()

	err := db.Update(func(tx *cairn.Tx) error {
		for _, name := range []string{"ada", "grace", "barbara"} {
			if err := tx.Put([]byte("user/"+name), []byte("engineer")); err != nil {
				return err
			}
		}
		return tx.Put([]byte("zone"), []byte("eu"))
	})
	if err != nil {
		log.Fatal(err)
	}
	err = db.View(func(tx *cairn.Tx) error {
		for k, v := range tx.Prefix([]byte("user/")) {
			fmt.Printf("%s = %s\n", k, v)
		}
		_, err := tx.Get([]byte("user/linus"))
		fmt.Println(errors.Is(err, cairn.ErrNotFound))
		return nil
	})
	if err != nil {
		log.Fatal(err)
	}
	// Output:
	// user/ada = engineer
	// user/barbara = engineer
	// user/grace = engineer
	// true
}

func ExampleTx_Range() {
	db, done := tempDB()
	defer done()
	db.Update(func(tx *cairn.Tx) error {
		for i := range 10 {
			tx.Put(fmt.Appendf(nil, "k%d", i), nil)
		}
		return nil
	})
	db.View(func(tx *cairn.Tx) error {
		for k := range tx.Range([]byte("k3"), []byte("k6")) { // [k3, k6)
			fmt.Println(string(k))
		}
		return nil
	})
	// Output:
	// k3
	// k4
	// k5
}

func ExampleCursor() {
	db, done := tempDB()
	defer done()
	db.Update(func(tx *cairn.Tx) error {
		for _, k := range []string{"apple", "banana", "cherry"} {
			tx.Put([]byte(k), nil)
		}
		return nil
	})
	db.View(func(tx *cairn.Tx) error {
		c := tx.Cursor()
		for k, _ := c.Last(); k != nil; k, _ = c.Prev() {
			fmt.Println(string(k))
		}
		k, _ := c.Seek([]byte("b"))
		fmt.Println("first key >= b:", string(k))
		return nil
	})
	// Output:
	// cherry
	// banana
	// apple
	// first key >= b: banana
}

func ExampleDB_Update_rollback() {
	db, done := tempDB()
	defer done()
	errStop := errors.New("changed my mind")
	err := db.Update(func(tx *cairn.Tx) error {
		tx.Put([]byte("k"), []byte("v"))
		return errStop // the transaction rolls back
	})
	fmt.Println(errors.Is(err, errStop))
	db.View(func(tx *cairn.Tx) error {
		_, err := tx.Get([]byte("k"))
		fmt.Println(errors.Is(err, cairn.ErrNotFound))
		return nil
	})
	// Output:
	// true
	// true
}

func ExampleTx_CreateBucketIfNotExists() {
	db, done := tempDB()
	defer done()

	err := db.Update(func(tx *cairn.Tx) error {
		users, err := tx.CreateBucketIfNotExists([]byte("users"))
		if err != nil {
			return err
		}
		if err := users.Put([]byte("ada"), []byte("lovelace")); err != nil {
			return err
		}
		// The same key in another key space is another key.
		return tx.Put([]byte("ada"), []byte("in the default key space"))
	})
	if err != nil {
		log.Fatal(err)
	}
	err = db.View(func(tx *cairn.Tx) error {
		users, err := tx.Bucket([]byte("users"))
		if err != nil {
			return err
		}
		v, err := users.Get([]byte("ada"))
		fmt.Printf("%s %v\n", v, err)
		_, err = tx.Bucket([]byte("orders"))
		fmt.Println(errors.Is(err, cairn.ErrBucketNotFound))
		return tx.ForEachBucket(func(name []byte) error {
			fmt.Printf("bucket %s\n", name)
			return nil
		})
	})
	if err != nil {
		log.Fatal(err)
	}
	// Output:
	// lovelace <nil>
	// true
	// bucket users
}

func ExampleTx_Savepoint() {
	db, done := tempDB()
	defer done()

	err := db.Update(func(tx *cairn.Tx) error {
		if err := tx.Put([]byte("order/1"), []byte("placed")); err != nil {
			return err
		}
		sp, err := tx.Savepoint()
		if err != nil {
			return err
		}
		if err := tx.Put([]byte("order/1/discount"), []byte("99%")); err != nil {
			return err
		}
		// Undo everything after the savepoint; the transaction goes on and commits the rest.
		return tx.RollbackTo(sp)
	})
	if err != nil {
		log.Fatal(err)
	}
	err = db.View(func(tx *cairn.Tx) error {
		for k, v := range tx.Prefix([]byte("order/")) {
			fmt.Printf("%s = %s\n", k, v)
		}
		return nil
	})
	if err != nil {
		log.Fatal(err)
	}
	// Output:
	// order/1 = placed
}

func ExampleDB_BackupFile() {
	db, done := tempDB()
	defer done()

	if err := db.Update(func(tx *cairn.Tx) error { return tx.Put([]byte("k"), []byte("v")) }); err != nil {
		log.Fatal(err)
	}
	dir, err := os.MkdirTemp("", "cairn-backup")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)
	// A hot copy: writers may go on meanwhile. The copy is a database of its own.
	path := filepath.Join(dir, "copy.db")
	if err := db.BackupFile(path); err != nil {
		log.Fatal(err)
	}
	backup, err := cairn.Open(path, nil)
	if err != nil {
		log.Fatal(err)
	}
	defer backup.Close()
	err = backup.View(func(tx *cairn.Tx) error {
		v, err := tx.Get([]byte("k"))
		fmt.Printf("%s %v\n", v, err)
		return nil
	})
	if err != nil {
		log.Fatal(err)
	}
	// Output:
	// v <nil>
}
