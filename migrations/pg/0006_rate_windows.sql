CREATE TABLE "rate_windows" (
	"key" text PRIMARY KEY NOT NULL,
	"start" bigint NOT NULL,
	"prev" bigint NOT NULL,
	"curr" bigint NOT NULL
);

