CREATE TABLE "replicas" (
	"id" text PRIMARY KEY NOT NULL,
	"started_at" bigint NOT NULL,
	"heartbeat_at" bigint NOT NULL
);

--> statement-breakpoint
ALTER TABLE "jobs" ADD COLUMN "owner" text;
