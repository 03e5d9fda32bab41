-- +goose Up
ALTER TABLE posts RENAME TO articles;
ALTER TABLE articles RENAME COLUMN body TO content;

-- +goose Down
ALTER TABLE articles RENAME COLUMN content TO body;
ALTER TABLE articles RENAME TO posts;
