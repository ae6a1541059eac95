CREATE TABLE `pioneer_totals` (
	`operator_id` text PRIMARY KEY NOT NULL,
	`points` integer DEFAULT 0 NOT NULL
);
--> statement-breakpoint
INSERT INTO pioneer_totals (operator_id, points) SELECT operator_id, sum(points) FROM pioneer_events GROUP BY operator_id;
--> statement-breakpoint
CREATE TRIGGER pioneer_totals_insert AFTER INSERT ON pioneer_events BEGIN
INSERT INTO pioneer_totals (operator_id, points) VALUES (new.operator_id, new.points)
ON CONFLICT(operator_id) DO UPDATE SET points = points + excluded.points;
END;
--> statement-breakpoint
CREATE TRIGGER pioneer_totals_delete AFTER DELETE ON pioneer_events BEGIN
UPDATE pioneer_totals SET points = points - old.points WHERE operator_id = old.operator_id;
END;
