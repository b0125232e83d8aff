PRAGMA foreign_keys=OFF;
BEGIN TRANSACTION;
CREATE TABLE participant (
	id VARCHAR NOT NULL, 
	phone VARCHAR NOT NULL, 
	lid VARCHAR, 
	name VARCHAR NOT NULL, 
	timezone VARCHAR NOT NULL, 
	status VARCHAR NOT NULL, 
	paused_by VARCHAR, 
	background TEXT NOT NULL, 
	enrolled_at DATETIME NOT NULL, 
	updated_at DATETIME NOT NULL, 
	PRIMARY KEY (id)
);
INSERT INTO participant VALUES('p_ca03a80a06eaafcf','+14165550140',NULL,'Ana','America/Toronto','active',NULL,'','2026-11-25 06:32:13.162900','2026-11-25 06:32:13.162900');
INSERT INTO participant VALUES('p_42a1cbf59b6b35a9','+14165550141',NULL,'Ben','America/Toronto','paused','participant','','2026-11-25 06:32:14.226592','2026-11-25 06:32:29.960457');
INSERT INTO participant VALUES('p_69de7b0c976b5b5e','+14165550142',NULL,'Cleo','America/Toronto','paused','researcher','','2026-11-25 06:32:15.293048','2026-11-25 06:32:32.763300');
INSERT INTO participant VALUES('p_93092677b6ee50ea','+14165550143',NULL,'Dev','America/Toronto','withdrawn',NULL,'','2026-11-25 06:32:16.935211','2026-11-25 06:32:35.742538');
INSERT INTO participant VALUES('p_1ee0129072e19415','+14165550144',NULL,'Eli','America/Toronto','active',NULL,'','2026-11-25 06:32:18.971994','2026-11-25 06:32:43.540178');
CREATE TABLE lid_mapping (
	lid VARCHAR NOT NULL, 
	phone VARCHAR NOT NULL, 
	updated_at DATETIME NOT NULL, 
	PRIMARY KEY (lid)
);
CREATE TABLE conversation (
	participant_id VARCHAR NOT NULL, 
	sub_state VARCHAR NOT NULL, 
	profile JSON NOT NULL, 
	tone JSON NOT NULL, 
	summary TEXT NOT NULL, 
	summary_through INTEGER NOT NULL, 
	turns_since_summary INTEGER NOT NULL, 
	version INTEGER NOT NULL, 
	updated_at DATETIME NOT NULL, 
	PRIMARY KEY (participant_id), 
	FOREIGN KEY(participant_id) REFERENCES participant (id)
);
INSERT INTO conversation VALUES('p_ca03a80a06eaafcf','INTAKE','{}','{}','',0,2,3,'2026-11-25 06:32:25.914089');
INSERT INTO conversation VALUES('p_42a1cbf59b6b35a9','INTAKE','{}','{}','',0,1,3,'2026-11-25 06:32:29.960457');
INSERT INTO conversation VALUES('p_69de7b0c976b5b5e','INTAKE','{}','{}','',0,1,3,'2026-11-25 06:32:32.763300');
INSERT INTO conversation VALUES('p_93092677b6ee50ea','INTAKE','{}','{}','',0,1,3,'2026-11-25 06:32:35.742538');
INSERT INTO conversation VALUES('p_1ee0129072e19415','INTAKE','{}','{}','',0,1,4,'2026-11-25 06:32:43.540178');
CREATE TABLE message (
	id INTEGER NOT NULL, 
	participant_id VARCHAR NOT NULL, 
	direction VARCHAR NOT NULL, 
	role VARCHAR NOT NULL, 
	kind VARCHAR NOT NULL, 
	text TEXT NOT NULL, 
	payload JSON NOT NULL, 
	wa_message_id VARCHAR, 
	status VARCHAR NOT NULL, 
	created_at DATETIME NOT NULL, 
	sent_at DATETIME, 
	PRIMARY KEY (id), 
	FOREIGN KEY(participant_id) REFERENCES participant (id)
);
INSERT INTO message VALUES(1,'p_42a1cbf59b6b35a9','out','assistant','greeting','Hello! Glad you''re here. What small habit would you like to build?','{}','dry-ca16f82ca734f94f','sent','2026-11-25 06:32:21.909181','2026-11-25 06:32:21.955183');
INSERT INTO message VALUES(2,'p_93092677b6ee50ea','out','assistant','greeting','Hello! Glad you''re here. What small habit would you like to build?','{}','dry-4c77bf2f06f67093','sent','2026-11-25 06:32:21.909294','2026-11-25 06:32:21.955253');
INSERT INTO message VALUES(3,'p_ca03a80a06eaafcf','out','assistant','greeting','Hello! Glad you''re here. What small habit would you like to build?','{}','dry-4749feb12f59ca99','sent','2026-11-25 06:32:21.914387','2026-11-25 06:32:21.955287');
INSERT INTO message VALUES(4,'p_69de7b0c976b5b5e','out','assistant','greeting','Hello! Glad you''re here. What small habit would you like to build?','{}','dry-8a98cf8756c69f6a','sent','2026-11-25 06:32:21.914452','2026-11-25 06:32:21.955319');
INSERT INTO message VALUES(5,'p_1ee0129072e19415','out','assistant','greeting','Hello! Glad you''re here. What small habit would you like to build?','{}','dry-6722641b03daa275','sent','2026-11-25 06:32:21.914485','2026-11-25 06:32:21.955351');
INSERT INTO message VALUES(6,'p_ca03a80a06eaafcf','in','user','text','I''d like to walk after lunch','{}','sim-18a5e5309107047a','answered','2026-11-25 06:32:25.664241',NULL);
INSERT INTO message VALUES(7,'p_ca03a80a06eaafcf','out','assistant','text','Hello! Glad you''re here. What small habit would you like to build?','{}','dry-a430bd788be35b5d','sent','2026-11-25 06:32:25.914089','2026-11-25 06:32:25.943014');
INSERT INTO message VALUES(8,'p_42a1cbf59b6b35a9','in','user','text','STOP','{}','sim-f3c060f2bd1faf2a','answered','2026-11-25 06:32:29.482857',NULL);
INSERT INTO message VALUES(9,'p_42a1cbf59b6b35a9','out','assistant','command','Okay, you''re unsubscribed: you won''t get any more daily nudges, reminders or check-ins from this study. If you change your mind, send START. Send HELP for information.','{}','dry-3ad4b944129625ed','sent','2026-11-25 06:32:29.960457','2026-11-25 06:32:30.024366');
INSERT INTO message VALUES(10,'p_1ee0129072e19415','in','user','text','STOP','{}','sim-659cf55ac1d0b002','answered','2026-11-25 06:32:39.244549',NULL);
INSERT INTO message VALUES(11,'p_1ee0129072e19415','out','assistant','command','Okay, you''re unsubscribed: you won''t get any more daily nudges, reminders or check-ins from this study. If you change your mind, send START. Send HELP for information.','{}','dry-b03a4dcd6bb5bd95','sent','2026-11-25 06:32:39.491632','2026-11-25 06:32:39.520628');
INSERT INTO message VALUES(12,'p_1ee0129072e19415','in','user','text','START','{}','sim-c874d41a99198967','answered','2026-11-25 06:32:43.254564',NULL);
INSERT INTO message VALUES(13,'p_1ee0129072e19415','out','assistant','command','Welcome back! Your daily nudges are switched on again.','{}','dry-13d0106113bd4b77','sent','2026-11-25 06:32:43.540178','2026-11-25 06:32:43.557464');
CREATE TABLE transition (
	id INTEGER NOT NULL, 
	participant_id VARCHAR NOT NULL, 
	kind VARCHAR NOT NULL, 
	name VARCHAR NOT NULL, 
	from_value VARCHAR, 
	to_value VARCHAR NOT NULL, 
	reason TEXT NOT NULL, 
	created_at DATETIME NOT NULL, 
	PRIMARY KEY (id), 
	FOREIGN KEY(participant_id) REFERENCES participant (id)
);
INSERT INTO transition VALUES(1,'p_ca03a80a06eaafcf','status','enrolled',NULL,'active','enrolled by a researcher','2026-11-25 06:32:13.162900');
INSERT INTO transition VALUES(2,'p_42a1cbf59b6b35a9','status','enrolled',NULL,'active','enrolled by a researcher','2026-11-25 06:32:14.226592');
INSERT INTO transition VALUES(3,'p_69de7b0c976b5b5e','status','enrolled',NULL,'active','enrolled by a researcher','2026-11-25 06:32:15.293048');
INSERT INTO transition VALUES(4,'p_93092677b6ee50ea','status','enrolled',NULL,'active','enrolled by a researcher','2026-11-25 06:32:16.935211');
INSERT INTO transition VALUES(5,'p_1ee0129072e19415','status','enrolled',NULL,'active','enrolled by a researcher','2026-11-25 06:32:18.971994');
INSERT INTO transition VALUES(6,'p_42a1cbf59b6b35a9','status','opted_out','active','paused','participant sent STOP: consent to messages withdrawn','2026-11-25 06:32:29.960457');
INSERT INTO transition VALUES(7,'p_69de7b0c976b5b5e','status','paused_by_researcher','active','paused','on holiday','2026-11-25 06:32:32.763300');
INSERT INTO transition VALUES(8,'p_93092677b6ee50ea','status','withdrawn_by_researcher','active','withdrawn','moved away','2026-11-25 06:32:35.742538');
INSERT INTO transition VALUES(9,'p_1ee0129072e19415','status','opted_out','active','paused','participant sent STOP: consent to messages withdrawn','2026-11-25 06:32:39.491632');
INSERT INTO transition VALUES(10,'p_1ee0129072e19415','status','opted_in','paused','active','participant sent START','2026-11-25 06:32:43.540178');
CREATE TABLE schedule (
	id VARCHAR NOT NULL, 
	participant_id VARCHAR NOT NULL, 
	kind VARCHAR NOT NULL, 
	habit_time VARCHAR, 
	window_start VARCHAR, 
	window_end VARCHAR, 
	prep_minutes INTEGER NOT NULL, 
	active BOOLEAN NOT NULL, 
	created_at DATETIME NOT NULL, 
	updated_at DATETIME NOT NULL, 
	PRIMARY KEY (id), 
	FOREIGN KEY(participant_id) REFERENCES participant (id)
);
CREATE TABLE timer (
	id INTEGER NOT NULL, 
	participant_id VARCHAR NOT NULL, 
	kind VARCHAR NOT NULL, 
	due_at DATETIME NOT NULL, 
	payload JSON NOT NULL, 
	status VARCHAR NOT NULL, 
	reason TEXT NOT NULL, 
	created_at DATETIME NOT NULL, 
	settled_at DATETIME, 
	PRIMARY KEY (id), 
	FOREIGN KEY(participant_id) REFERENCES participant (id)
);
CREATE TABLE tone_event (
	id INTEGER NOT NULL, 
	participant_id VARCHAR NOT NULL, 
	source VARCHAR NOT NULL, 
	proposed JSON NOT NULL, 
	stripped JSON NOT NULL, 
	outcome VARCHAR NOT NULL, 
	active_before JSON NOT NULL, 
	active_after JSON NOT NULL, 
	scores JSON NOT NULL, 
	created_at DATETIME NOT NULL, 
	PRIMARY KEY (id), 
	FOREIGN KEY(participant_id) REFERENCES participant (id)
);
CREATE TABLE inbox (
	id INTEGER NOT NULL, 
	"key" VARCHAR NOT NULL, 
	participant_id VARCHAR NOT NULL, 
	kind VARCHAR NOT NULL, 
	payload JSON NOT NULL, 
	message_id INTEGER, 
	status VARCHAR NOT NULL, 
	attempts INTEGER NOT NULL, 
	available_at DATETIME NOT NULL, 
	created_at DATETIME NOT NULL, 
	processed_at DATETIME, 
	last_error TEXT, 
	PRIMARY KEY (id), 
	UNIQUE ("key"), 
	FOREIGN KEY(participant_id) REFERENCES participant (id), 
	FOREIGN KEY(message_id) REFERENCES message (id)
);
INSERT INTO inbox VALUES(1,'enroll:p_ca03a80a06eaafcf','p_ca03a80a06eaafcf','enroll','{}',NULL,'done',0,'2026-11-25 06:32:13.162900','2026-11-25 06:32:13.162900','2026-11-25 06:32:21.914387',NULL);
INSERT INTO inbox VALUES(2,'enroll:p_42a1cbf59b6b35a9','p_42a1cbf59b6b35a9','enroll','{}',NULL,'done',0,'2026-11-25 06:32:14.226592','2026-11-25 06:32:14.226592','2026-11-25 06:32:21.909181',NULL);
INSERT INTO inbox VALUES(3,'enroll:p_69de7b0c976b5b5e','p_69de7b0c976b5b5e','enroll','{}',NULL,'done',0,'2026-11-25 06:32:15.293048','2026-11-25 06:32:15.293048','2026-11-25 06:32:21.914452',NULL);
INSERT INTO inbox VALUES(4,'enroll:p_93092677b6ee50ea','p_93092677b6ee50ea','enroll','{}',NULL,'done',0,'2026-11-25 06:32:16.935211','2026-11-25 06:32:16.935211','2026-11-25 06:32:21.909294',NULL);
INSERT INTO inbox VALUES(5,'enroll:p_1ee0129072e19415','p_1ee0129072e19415','enroll','{}',NULL,'done',0,'2026-11-25 06:32:18.971994','2026-11-25 06:32:18.971994','2026-11-25 06:32:21.914485',NULL);
INSERT INTO inbox VALUES(6,'wa:sim-18a5e5309107047a','p_ca03a80a06eaafcf','message','{}',6,'done',0,'2026-11-25 06:32:25.664241','2026-11-25 06:32:25.664241','2026-11-25 06:32:25.914089',NULL);
INSERT INTO inbox VALUES(7,'wa:sim-f3c060f2bd1faf2a','p_42a1cbf59b6b35a9','message','{}',8,'done',0,'2026-11-25 06:32:29.482857','2026-11-25 06:32:29.482857','2026-11-25 06:32:29.960457',NULL);
INSERT INTO inbox VALUES(8,'sync:p_69de7b0c976b5b5e:e476d1b2','p_69de7b0c976b5b5e','sync','{}',NULL,'done',0,'2026-11-25 06:32:32.763300','2026-11-25 06:32:32.763300','2026-11-25 06:32:32.931687',NULL);
INSERT INTO inbox VALUES(9,'sync:p_93092677b6ee50ea:f06a63de','p_93092677b6ee50ea','sync','{}',NULL,'done',0,'2026-11-25 06:32:35.742538','2026-11-25 06:32:35.742538','2026-11-25 06:32:35.949682',NULL);
INSERT INTO inbox VALUES(10,'wa:sim-659cf55ac1d0b002','p_1ee0129072e19415','message','{}',10,'done',0,'2026-11-25 06:32:39.244549','2026-11-25 06:32:39.244549','2026-11-25 06:32:39.491632',NULL);
INSERT INTO inbox VALUES(11,'wa:sim-c874d41a99198967','p_1ee0129072e19415','message','{}',12,'done',0,'2026-11-25 06:32:43.254564','2026-11-25 06:32:43.254564','2026-11-25 06:32:43.540178',NULL);
CREATE TABLE outbox (
	id INTEGER NOT NULL, 
	"key" VARCHAR NOT NULL, 
	participant_id VARCHAR NOT NULL, 
	message_id INTEGER NOT NULL, 
	status VARCHAR NOT NULL, 
	attempts INTEGER NOT NULL, 
	available_at DATETIME NOT NULL, 
	claimed_at DATETIME, 
	sent_at DATETIME, 
	wa_message_id VARCHAR, 
	last_error TEXT, 
	created_at DATETIME NOT NULL, 
	PRIMARY KEY (id), 
	UNIQUE ("key"), 
	FOREIGN KEY(participant_id) REFERENCES participant (id), 
	FOREIGN KEY(message_id) REFERENCES message (id)
);
INSERT INTO outbox VALUES(1,'reply:2','p_42a1cbf59b6b35a9',1,'sent',1,'2026-11-25 06:32:21.909181','2026-11-25 06:32:21.950081','2026-11-25 06:32:21.955183','dry-ca16f82ca734f94f',NULL,'2026-11-25 06:32:21.909181');
INSERT INTO outbox VALUES(2,'reply:4','p_93092677b6ee50ea',2,'sent',1,'2026-11-25 06:32:21.909294','2026-11-25 06:32:21.950081','2026-11-25 06:32:21.955253','dry-4c77bf2f06f67093',NULL,'2026-11-25 06:32:21.909294');
INSERT INTO outbox VALUES(3,'reply:1','p_ca03a80a06eaafcf',3,'sent',1,'2026-11-25 06:32:21.914387','2026-11-25 06:32:21.950081','2026-11-25 06:32:21.955287','dry-4749feb12f59ca99',NULL,'2026-11-25 06:32:21.914387');
INSERT INTO outbox VALUES(4,'reply:3','p_69de7b0c976b5b5e',4,'sent',1,'2026-11-25 06:32:21.914452','2026-11-25 06:32:21.950081','2026-11-25 06:32:21.955319','dry-8a98cf8756c69f6a',NULL,'2026-11-25 06:32:21.914452');
INSERT INTO outbox VALUES(5,'reply:5','p_1ee0129072e19415',5,'sent',1,'2026-11-25 06:32:21.914485','2026-11-25 06:32:21.950081','2026-11-25 06:32:21.955351','dry-6722641b03daa275',NULL,'2026-11-25 06:32:21.914485');
INSERT INTO outbox VALUES(6,'reply:6','p_ca03a80a06eaafcf',7,'sent',1,'2026-11-25 06:32:25.914089','2026-11-25 06:32:25.934803','2026-11-25 06:32:25.943014','dry-a430bd788be35b5d',NULL,'2026-11-25 06:32:25.914089');
INSERT INTO outbox VALUES(7,'reply:7','p_42a1cbf59b6b35a9',9,'sent',1,'2026-11-25 06:32:29.960457','2026-11-25 06:32:30.012165','2026-11-25 06:32:30.024366','dry-3ad4b944129625ed',NULL,'2026-11-25 06:32:29.960457');
INSERT INTO outbox VALUES(8,'reply:10','p_1ee0129072e19415',11,'sent',1,'2026-11-25 06:32:39.491632','2026-11-25 06:32:39.517226','2026-11-25 06:32:39.520628','dry-b03a4dcd6bb5bd95',NULL,'2026-11-25 06:32:39.491632');
INSERT INTO outbox VALUES(9,'reply:11','p_1ee0129072e19415',13,'sent',1,'2026-11-25 06:32:43.540178','2026-11-25 06:32:43.556076','2026-11-25 06:32:43.557464','dry-13d0106113bd4b77',NULL,'2026-11-25 06:32:43.540178');
CREATE TABLE prompt_delivery (
	id INTEGER NOT NULL, 
	participant_id VARCHAR NOT NULL, 
	inbox_id INTEGER NOT NULL, 
	schedule_id VARCHAR, 
	local_date VARCHAR NOT NULL, 
	prompt_text TEXT NOT NULL, 
	prompt_message_id INTEGER, 
	poll_message_id INTEGER, 
	sent_at DATETIME NOT NULL, 
	vote VARCHAR, 
	voted_at DATETIME, 
	vote_changes INTEGER NOT NULL, 
	replied_at DATETIME, 
	reminder_at DATETIME, 
	PRIMARY KEY (id), 
	FOREIGN KEY(participant_id) REFERENCES participant (id), 
	UNIQUE (inbox_id), 
	FOREIGN KEY(prompt_message_id) REFERENCES message (id), 
	FOREIGN KEY(poll_message_id) REFERENCES message (id)
);
CREATE TABLE apscheduler_jobs (
	id VARCHAR(191) NOT NULL, 
	next_run_time FLOAT, 
	job_state BLOB NOT NULL, 
	PRIMARY KEY (id)
);
CREATE UNIQUE INDEX ix_participant_phone ON participant (phone);
CREATE INDEX ix_participant_lid ON participant (lid);
CREATE INDEX ix_lid_mapping_phone ON lid_mapping (phone);
CREATE INDEX ix_message_participant_id_id ON message (participant_id, id);
CREATE INDEX ix_message_wa_message_id ON message (wa_message_id);
CREATE INDEX ix_transition_participant_id ON transition (participant_id);
CREATE INDEX ix_schedule_participant_active ON schedule (participant_id, active);
CREATE INDEX ix_timer_status_due ON timer (status, due_at);
CREATE INDEX ix_timer_participant_status ON timer (participant_id, status);
CREATE INDEX ix_tone_event_participant_id ON tone_event (participant_id);
CREATE INDEX ix_inbox_participant_status ON inbox (participant_id, status, id);
CREATE INDEX ix_inbox_status_available ON inbox (status, available_at);
CREATE INDEX ix_outbox_participant_id ON outbox (participant_id, id);
CREATE INDEX ix_outbox_status_available ON outbox (status, available_at);
CREATE INDEX ix_prompt_delivery_poll_message_id ON prompt_delivery (poll_message_id);
CREATE INDEX ix_prompt_delivery_participant_id ON prompt_delivery (participant_id, id);
CREATE INDEX ix_apscheduler_jobs_next_run_time ON apscheduler_jobs (next_run_time);
COMMIT;
