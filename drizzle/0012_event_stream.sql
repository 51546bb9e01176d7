CREATE TABLE "event_stream_head" (
	"id" integer PRIMARY KEY NOT NULL,
	"seq" bigint NOT NULL
);
--> statement-breakpoint
INSERT INTO "event_stream_head" ("id", "seq") VALUES (1, 0);--> statement-breakpoint
-- Events written before the stream existed read as position 0 (a constant default costs no rewrite of the table);
-- new events start without one (null) until the sequencer gives them theirs.
ALTER TABLE "events" ADD COLUMN "stream_seq" bigint DEFAULT 0;--> statement-breakpoint
ALTER TABLE "events" ALTER COLUMN "stream_seq" DROP DEFAULT;--> statement-breakpoint
CREATE INDEX "events_stream_idx" ON "events" USING btree ("merchant_id","is_test","stream_seq");--> statement-breakpoint
CREATE INDEX "events_unsequenced_idx" ON "events" USING btree ("created_at","id") WHERE "events"."stream_seq" is null and not "events"."sample";
