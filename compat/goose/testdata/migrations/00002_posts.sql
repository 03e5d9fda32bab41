-- +goose Up
-- +goose StatementBegin
CREATE TABLE posts (
    id INTEGER PRIMARY KEY,
    user_id INTEGER NOT NULL REFERENCES users(id),
    title TEXT NOT NULL,
    body TEXT NOT NULL DEFAULT ''
);
-- +goose StatementEnd
CREATE INDEX posts_user ON posts(user_id);
INSERT INTO users(email) VALUES ('first@example.com');
INSERT INTO posts(user_id, title) SELECT id, 'hello from ' || email FROM users;

-- +goose Down
DROP TABLE posts;
DELETE FROM users WHERE email = 'first@example.com';
