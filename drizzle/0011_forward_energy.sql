ALTER TABLE "forwards" ADD COLUMN "energy_used" numeric(78, 0);--> statement-breakpoint
ALTER TABLE "forwards" ADD COLUMN "energy_delegated" numeric(78, 0);--> statement-breakpoint
CREATE INDEX "forwards_final_idx" ON "forwards" USING btree ("final_at") WHERE state = 'final';