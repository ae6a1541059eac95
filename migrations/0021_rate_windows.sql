CREATE TABLE `rate_windows` (
	`key` text PRIMARY KEY NOT NULL,
	`start` integer NOT NULL,
	`prev` integer NOT NULL,
	`curr` integer NOT NULL
);
