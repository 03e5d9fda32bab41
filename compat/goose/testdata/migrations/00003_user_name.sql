-- +goose Up
ALTER TABLE users ADD COLUMN name TEXT NOT NULL DEFAULT 'anonymous';
UPDATE users SET name = substr(email, 1, instr(email, '@') - 1);

-- +goose Down
ALTER TABLE users DROP COLUMN name;
