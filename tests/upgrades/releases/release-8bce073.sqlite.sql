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
INSERT INTO participant VALUES('p_2f16dbee558e4e71','+14165550140',NULL,'Ana','America/Toronto','active',NULL,'','2026-01-06 04:57:31.668791','2026-01-06 04:57:31.668791');
INSERT INTO participant VALUES('p_a3810299c492bf79','+14165550141',NULL,'Ben','America/Toronto','paused','participant','','2026-01-06 04:57:34.546115','2026-01-06 04:57:49.734155');
INSERT INTO participant VALUES('p_1abf73128c50448a','+14165550142',NULL,'Cleo','America/Toronto','paused','researcher','','2026-01-06 04:57:36.215347','2026-01-06 04:57:52.379894');
INSERT INTO participant VALUES('p_8a586220f0ade813','+14165550143',NULL,'Dev','America/Toronto','withdrawn',NULL,'','2026-01-06 04:57:38.187365','2026-01-06 04:57:56.396057');
INSERT INTO participant VALUES('p_b9cd741cf11ae6ca','+14165550144',NULL,'Eli','America/Toronto','active',NULL,'','2026-01-06 04:57:40.257201','2026-01-06 04:58:05.742633');
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
	version INTEGER NOT NULL, 
	updated_at DATETIME NOT NULL, 
	PRIMARY KEY (participant_id), 
	FOREIGN KEY(participant_id) REFERENCES participant (id)
);
INSERT INTO conversation VALUES('p_2f16dbee558e4e71','FEEDBACK','{"habit_domain": "walking", "prompt_anchor": "after dinner", "motivational_frame": "to sleep better", "preferred_time": "00:01", "updated_at": "2026-01-06T04:57:45.169816+00:00"}','{}','',3,'2026-01-06 04:57:45.230064');
INSERT INTO conversation VALUES('p_a3810299c492bf79','INTAKE','{}','{}','',3,'2026-01-06 04:57:49.734155');
INSERT INTO conversation VALUES('p_1abf73128c50448a','INTAKE','{}','{}','',3,'2026-01-06 04:57:52.379894');
INSERT INTO conversation VALUES('p_8a586220f0ade813','INTAKE','{}','{}','',3,'2026-01-06 04:57:56.396057');
INSERT INTO conversation VALUES('p_b9cd741cf11ae6ca','INTAKE','{}','{}','',4,'2026-01-06 04:58:05.742633');
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
INSERT INTO message VALUES(1,'p_2f16dbee558e4e71','out','assistant','greeting','Walk around the block right after dinner tonight: ten minutes is plenty.','{}','dry-ce46da75394739ee','sent','2026-01-06 04:57:35.004002','2026-01-06 04:57:35.192734');
INSERT INTO message VALUES(2,'p_a3810299c492bf79','out','assistant','greeting','Walk around the block right after dinner tonight: ten minutes is plenty.','{}','dry-5db2ba1dfd56374a','sent','2026-01-06 04:57:35.398003','2026-01-06 04:57:35.429556');
INSERT INTO message VALUES(3,'p_1abf73128c50448a','out','assistant','greeting','Walk around the block right after dinner tonight: ten minutes is plenty.','{}','dry-abbbd86035142485','sent','2026-01-06 04:57:36.937394','2026-01-06 04:57:36.943968');
INSERT INTO message VALUES(4,'p_8a586220f0ade813','out','assistant','greeting','Walk around the block right after dinner tonight: ten minutes is plenty.','{}','dry-5af706ab5230a28a','sent','2026-01-06 04:57:39.034807','2026-01-06 04:57:39.042694');
INSERT INTO message VALUES(5,'p_b9cd741cf11ae6ca','out','assistant','greeting','Walk around the block right after dinner tonight: ten minutes is plenty.','{}','dry-5fe7ebfaddf7bf35','sent','2026-01-06 04:57:40.595089','2026-01-06 04:57:40.605545');
INSERT INTO message VALUES(6,'p_2f16dbee558e4e71','in','user','text','I''d like to walk around the block after dinner, just after midnight works','{}','sim-ea8fa9ee699d58e0','answered','2026-01-06 04:57:44.806990',NULL);
INSERT INTO message VALUES(7,'p_2f16dbee558e4e71','out','assistant','text','Lovely, your plan is set. I''ll nudge you each day.','{}','dry-eb5f47ac2c1a74ef','sent','2026-01-06 04:57:45.230064','2026-01-06 04:57:45.275185');
INSERT INTO message VALUES(8,'p_a3810299c492bf79','in','user','text','STOP','{}','sim-eac5d09cfa51439c','answered','2026-01-06 04:57:48.977005',NULL);
INSERT INTO message VALUES(9,'p_a3810299c492bf79','out','assistant','command','Okay, you''re unsubscribed: you won''t get any more daily nudges, reminders or check-ins from this study. If you change your mind, send START. Send HELP for information.','{}','dry-85796ee48e848087','sent','2026-01-06 04:57:49.734155','2026-01-06 04:57:49.748834');
INSERT INTO message VALUES(10,'p_b9cd741cf11ae6ca','in','user','text','STOP','{}','sim-521a439fd8156155','answered','2026-01-06 04:58:01.075004',NULL);
INSERT INTO message VALUES(11,'p_b9cd741cf11ae6ca','out','assistant','command','Okay, you''re unsubscribed: you won''t get any more daily nudges, reminders or check-ins from this study. If you change your mind, send START. Send HELP for information.','{}','dry-a3b10e7506b5c3fd','sent','2026-01-06 04:58:01.998420','2026-01-06 04:58:02.128368');
INSERT INTO message VALUES(12,'p_b9cd741cf11ae6ca','in','user','text','START','{}','sim-78af81703197835e','answered','2026-01-06 04:58:05.186919',NULL);
INSERT INTO message VALUES(13,'p_b9cd741cf11ae6ca','out','assistant','command','Welcome back! Your daily nudges are switched on again.','{}','dry-1f3f8e7d80e5033a','sent','2026-01-06 04:58:05.742633','2026-01-06 04:58:05.759162');
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
INSERT INTO transition VALUES(1,'p_2f16dbee558e4e71','status','enrolled',NULL,'active','enrolled by a researcher','2026-01-06 04:57:31.668791');
INSERT INTO transition VALUES(2,'p_a3810299c492bf79','status','enrolled',NULL,'active','enrolled by a researcher','2026-01-06 04:57:34.546115');
INSERT INTO transition VALUES(3,'p_1abf73128c50448a','status','enrolled',NULL,'active','enrolled by a researcher','2026-01-06 04:57:36.215347');
INSERT INTO transition VALUES(4,'p_8a586220f0ade813','status','enrolled',NULL,'active','enrolled by a researcher','2026-01-06 04:57:38.187365');
INSERT INTO transition VALUES(5,'p_b9cd741cf11ae6ca','status','enrolled',NULL,'active','enrolled by a researcher','2026-01-06 04:57:40.257201');
INSERT INTO transition VALUES(6,'p_2f16dbee558e4e71','sub_state','intake_to_feedback','INTAKE','FEEDBACK','the plan is set','2026-01-06 04:57:45.230064');
INSERT INTO transition VALUES(7,'p_a3810299c492bf79','status','opted_out','active','paused','participant sent STOP: consent to messages withdrawn','2026-01-06 04:57:49.734155');
INSERT INTO transition VALUES(8,'p_1abf73128c50448a','status','paused_by_researcher','active','paused','on holiday','2026-01-06 04:57:52.379894');
INSERT INTO transition VALUES(9,'p_8a586220f0ade813','status','withdrawn_by_researcher','active','withdrawn','moved away','2026-01-06 04:57:56.396057');
INSERT INTO transition VALUES(10,'p_b9cd741cf11ae6ca','status','opted_out','active','paused','participant sent STOP: consent to messages withdrawn','2026-01-06 04:58:01.998420');
INSERT INTO transition VALUES(11,'p_b9cd741cf11ae6ca','status','opted_in','paused','active','participant sent START','2026-01-06 04:58:05.742633');
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
INSERT INTO inbox VALUES(1,'enroll:p_2f16dbee558e4e71','p_2f16dbee558e4e71','enroll','{}',NULL,'done',0,'2026-01-06 04:57:31.668791','2026-01-06 04:57:31.668791','2026-01-06 04:57:35.004002',NULL);
INSERT INTO inbox VALUES(2,'enroll:p_a3810299c492bf79','p_a3810299c492bf79','enroll','{}',NULL,'done',0,'2026-01-06 04:57:34.546115','2026-01-06 04:57:34.546115','2026-01-06 04:57:35.398003',NULL);
INSERT INTO inbox VALUES(3,'enroll:p_1abf73128c50448a','p_1abf73128c50448a','enroll','{}',NULL,'done',0,'2026-01-06 04:57:36.215347','2026-01-06 04:57:36.215347','2026-01-06 04:57:36.937394',NULL);
INSERT INTO inbox VALUES(4,'enroll:p_8a586220f0ade813','p_8a586220f0ade813','enroll','{}',NULL,'done',0,'2026-01-06 04:57:38.187365','2026-01-06 04:57:38.187365','2026-01-06 04:57:39.034807',NULL);
INSERT INTO inbox VALUES(5,'enroll:p_b9cd741cf11ae6ca','p_b9cd741cf11ae6ca','enroll','{}',NULL,'done',0,'2026-01-06 04:57:40.257201','2026-01-06 04:57:40.257201','2026-01-06 04:57:40.595089',NULL);
INSERT INTO inbox VALUES(6,'wa:sim-ea8fa9ee699d58e0','p_2f16dbee558e4e71','message','{}',6,'done',0,'2026-01-06 04:57:44.806990','2026-01-06 04:57:44.806990','2026-01-06 04:57:45.230064',NULL);
INSERT INTO inbox VALUES(7,'wa:sim-eac5d09cfa51439c','p_a3810299c492bf79','message','{}',8,'done',0,'2026-01-06 04:57:48.977005','2026-01-06 04:57:48.977005','2026-01-06 04:57:49.734155',NULL);
INSERT INTO inbox VALUES(8,'wa:sim-521a439fd8156155','p_b9cd741cf11ae6ca','message','{}',10,'done',0,'2026-01-06 04:58:01.075004','2026-01-06 04:58:01.075004','2026-01-06 04:58:01.998420',NULL);
INSERT INTO inbox VALUES(9,'wa:sim-78af81703197835e','p_b9cd741cf11ae6ca','message','{}',12,'done',0,'2026-01-06 04:58:05.186919','2026-01-06 04:58:05.186919','2026-01-06 04:58:05.742633',NULL);
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
INSERT INTO outbox VALUES(1,'reply:1','p_2f16dbee558e4e71',1,'sent',1,'2026-01-06 04:57:35.004002','2026-01-06 04:57:35.185101','2026-01-06 04:57:35.192734','dry-ce46da75394739ee',NULL,'2026-01-06 04:57:35.004002');
INSERT INTO outbox VALUES(2,'reply:2','p_a3810299c492bf79',2,'sent',1,'2026-01-06 04:57:35.398003','2026-01-06 04:57:35.425923','2026-01-06 04:57:35.429556','dry-5db2ba1dfd56374a',NULL,'2026-01-06 04:57:35.398003');
INSERT INTO outbox VALUES(3,'reply:3','p_1abf73128c50448a',3,'sent',1,'2026-01-06 04:57:36.937394','2026-01-06 04:57:36.942915','2026-01-06 04:57:36.943968','dry-abbbd86035142485',NULL,'2026-01-06 04:57:36.937394');
INSERT INTO outbox VALUES(4,'reply:4','p_8a586220f0ade813',4,'sent',1,'2026-01-06 04:57:39.034807','2026-01-06 04:57:39.041766','2026-01-06 04:57:39.042694','dry-5af706ab5230a28a',NULL,'2026-01-06 04:57:39.034807');
INSERT INTO outbox VALUES(5,'reply:5','p_b9cd741cf11ae6ca',5,'sent',1,'2026-01-06 04:57:40.595089','2026-01-06 04:57:40.604112','2026-01-06 04:57:40.605545','dry-5fe7ebfaddf7bf35',NULL,'2026-01-06 04:57:40.595089');
INSERT INTO outbox VALUES(6,'reply:6','p_2f16dbee558e4e71',7,'sent',1,'2026-01-06 04:57:45.230064','2026-01-06 04:57:45.263039','2026-01-06 04:57:45.275185','dry-eb5f47ac2c1a74ef',NULL,'2026-01-06 04:57:45.230064');
INSERT INTO outbox VALUES(7,'reply:7','p_a3810299c492bf79',9,'sent',1,'2026-01-06 04:57:49.734155','2026-01-06 04:57:49.746953','2026-01-06 04:57:49.748834','dry-85796ee48e848087',NULL,'2026-01-06 04:57:49.734155');
INSERT INTO outbox VALUES(8,'reply:8','p_b9cd741cf11ae6ca',11,'sent',1,'2026-01-06 04:58:01.998420','2026-01-06 04:58:02.125399','2026-01-06 04:58:02.128368','dry-a3b10e7506b5c3fd',NULL,'2026-01-06 04:58:01.998420');
INSERT INTO outbox VALUES(9,'reply:9','p_b9cd741cf11ae6ca',13,'sent',1,'2026-01-06 04:58:05.742633','2026-01-06 04:58:05.756746','2026-01-06 04:58:05.759162','dry-1f3f8e7d80e5033a',NULL,'2026-01-06 04:58:05.742633');
CREATE INDEX ix_participant_lid ON participant (lid);
CREATE UNIQUE INDEX ix_participant_phone ON participant (phone);
CREATE INDEX ix_lid_mapping_phone ON lid_mapping (phone);
CREATE INDEX ix_message_wa_message_id ON message (wa_message_id);
CREATE INDEX ix_message_participant_id_id ON message (participant_id, id);
CREATE INDEX ix_transition_participant_id ON transition (participant_id);
CREATE INDEX ix_inbox_participant_status ON inbox (participant_id, status, id);
CREATE INDEX ix_inbox_status_available ON inbox (status, available_at);
CREATE INDEX ix_outbox_participant_id ON outbox (participant_id, id);
CREATE INDEX ix_outbox_status_available ON outbox (status, available_at);
COMMIT;
