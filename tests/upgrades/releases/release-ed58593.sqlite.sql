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
INSERT INTO participant VALUES('p_0095aed73f763dbc','+14165550140',NULL,'Ana','America/Toronto','active',NULL,'','2026-01-06 04:57:32.981233','2026-01-06 04:57:32.981233');
INSERT INTO participant VALUES('p_29e7429980065d35','+14165550141',NULL,'Ben','America/Toronto','paused','participant','','2026-01-06 04:57:34.871454','2026-01-06 04:57:49.228422');
INSERT INTO participant VALUES('p_840ec91ab387d2ad','+14165550142',NULL,'Cleo','America/Toronto','paused','researcher','','2026-01-06 04:57:37.325064','2026-01-06 04:57:52.132908');
INSERT INTO participant VALUES('p_f1a2cedf16640d08','+14165550143',NULL,'Dev','America/Toronto','withdrawn',NULL,'','2026-01-06 04:57:39.561090','2026-01-06 04:57:55.133328');
INSERT INTO participant VALUES('p_3b18210980e0fbfd','+14165550144',NULL,'Eli','America/Toronto','active',NULL,'','2026-01-06 04:57:41.682428','2026-01-06 04:58:06.211649');
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
INSERT INTO conversation VALUES('p_0095aed73f763dbc','FEEDBACK','{"habit_domain": "walking", "prompt_anchor": "after dinner", "motivational_frame": "to sleep better", "preferred_time": "00:01", "updated_at": "2026-01-06T04:57:45.681696+00:00", "counters": {"prompts_sent": 1}, "last_habit_prompt": "Walk around the block right after dinner tonight: ten minutes is plenty.", "last_prompt_sent_at": "2026-01-06T05:01:00.150642+00:00", "intensity_poll_date": "2026-01-06"}','{}','',4,'2026-01-06 05:01:00.198784');
INSERT INTO conversation VALUES('p_29e7429980065d35','INTAKE','{}','{}','',3,'2026-01-06 04:57:49.228422');
INSERT INTO conversation VALUES('p_840ec91ab387d2ad','INTAKE','{}','{}','',3,'2026-01-06 04:57:52.132908');
INSERT INTO conversation VALUES('p_f1a2cedf16640d08','INTAKE','{}','{}','',3,'2026-01-06 04:57:55.133328');
INSERT INTO conversation VALUES('p_3b18210980e0fbfd','INTAKE','{}','{}','',4,'2026-01-06 04:58:06.211649');
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
INSERT INTO message VALUES(1,'p_0095aed73f763dbc','out','assistant','greeting','Walk around the block right after dinner tonight: ten minutes is plenty.','{}','dry-1cb6023b5a590836','sent','2026-01-06 04:57:34.898614','2026-01-06 04:57:35.011474');
INSERT INTO message VALUES(2,'p_29e7429980065d35','out','assistant','greeting','Walk around the block right after dinner tonight: ten minutes is plenty.','{}','dry-8bb272f000992547','sent','2026-01-06 04:57:36.064799','2026-01-06 04:57:36.180157');
INSERT INTO message VALUES(3,'p_840ec91ab387d2ad','out','assistant','greeting','Walk around the block right after dinner tonight: ten minutes is plenty.','{}','dry-79a9373cb4cd0c80','sent','2026-01-06 04:57:38.107474','2026-01-06 04:57:38.120267');
INSERT INTO message VALUES(4,'p_f1a2cedf16640d08','out','assistant','greeting','Walk around the block right after dinner tonight: ten minutes is plenty.','{}','dry-d2db830562436a1f','sent','2026-01-06 04:57:40.075958','2026-01-06 04:57:40.101789');
INSERT INTO message VALUES(5,'p_3b18210980e0fbfd','out','assistant','greeting','Walk around the block right after dinner tonight: ten minutes is plenty.','{}','dry-d782db512e7359c0','sent','2026-01-06 04:57:42.124629','2026-01-06 04:57:42.146441');
INSERT INTO message VALUES(6,'p_0095aed73f763dbc','in','user','text','I''d like to walk around the block after dinner, just after midnight works','{}','sim-c79a313d9785aa68','answered','2026-01-06 04:57:45.090956',NULL);
INSERT INTO message VALUES(7,'p_0095aed73f763dbc','out','assistant','text','Lovely, your plan is set. I''ll nudge you each day.','{}','dry-7195f36aad95b054','sent','2026-01-06 04:57:45.735766','2026-01-06 04:57:45.823355');
INSERT INTO message VALUES(8,'p_29e7429980065d35','in','user','text','STOP','{}','sim-965c67794ee86292','answered','2026-01-06 04:57:48.102981',NULL);
INSERT INTO message VALUES(9,'p_29e7429980065d35','out','assistant','command','Okay, you''re unsubscribed: you won''t get any more daily nudges, reminders or check-ins from this study. If you change your mind, send START. Send HELP for information.','{}','dry-bc27a69324120056','sent','2026-01-06 04:57:49.228422','2026-01-06 04:57:49.271106');
INSERT INTO message VALUES(10,'p_3b18210980e0fbfd','in','user','text','STOP','{}','sim-ef8b163adf34a92c','answered','2026-01-06 04:58:00.473017',NULL);
INSERT INTO message VALUES(11,'p_3b18210980e0fbfd','out','assistant','command','Okay, you''re unsubscribed: you won''t get any more daily nudges, reminders or check-ins from this study. If you change your mind, send START. Send HELP for information.','{}','dry-0b3fb8cdd7a509ed','sent','2026-01-06 04:58:01.418327','2026-01-06 04:58:01.455948');
INSERT INTO message VALUES(12,'p_3b18210980e0fbfd','in','user','text','START','{}','sim-09479de0e34c723e','answered','2026-01-06 04:58:05.549654',NULL);
INSERT INTO message VALUES(13,'p_3b18210980e0fbfd','out','assistant','command','Welcome back! Your daily nudges are switched on again.','{}','dry-5d457c843cc9686b','sent','2026-01-06 04:58:06.211649','2026-01-06 04:58:06.280185');
INSERT INTO message VALUES(14,'p_0095aed73f763dbc','out','assistant','prompt','Walk around the block right after dinner tonight: ten minutes is plenty.','{}','dry-af8269b2479d24b5','sent','2026-01-06 05:01:00.198784','2026-01-06 05:01:00.237609');
INSERT INTO message VALUES(15,'p_0095aed73f763dbc','out','assistant','poll','Did you do it?','{"options": ["Done", "Not this time"], "purpose": "done"}','dry-7a57dea6bb03186d','sent','2026-01-06 05:01:00.198784','2026-01-06 05:01:00.257937');
INSERT INTO message VALUES(16,'p_0095aed73f763dbc','out','assistant','poll','How do these daily steps feel to you?','{"options": ["A bit lighter, please", "Just right", "A bit more, please"], "purpose": "intensity"}','dry-d87af55dcde6e6d2','sent','2026-01-06 05:01:00.198784','2026-01-06 05:01:00.281904');
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
INSERT INTO transition VALUES(1,'p_0095aed73f763dbc','status','enrolled',NULL,'active','enrolled by a researcher','2026-01-06 04:57:32.981233');
INSERT INTO transition VALUES(2,'p_29e7429980065d35','status','enrolled',NULL,'active','enrolled by a researcher','2026-01-06 04:57:34.871454');
INSERT INTO transition VALUES(3,'p_840ec91ab387d2ad','status','enrolled',NULL,'active','enrolled by a researcher','2026-01-06 04:57:37.325064');
INSERT INTO transition VALUES(4,'p_f1a2cedf16640d08','status','enrolled',NULL,'active','enrolled by a researcher','2026-01-06 04:57:39.561090');
INSERT INTO transition VALUES(5,'p_3b18210980e0fbfd','status','enrolled',NULL,'active','enrolled by a researcher','2026-01-06 04:57:41.682428');
INSERT INTO transition VALUES(6,'p_0095aed73f763dbc','sub_state','intake_to_feedback','INTAKE','FEEDBACK','the plan is set','2026-01-06 04:57:45.735766');
INSERT INTO transition VALUES(7,'p_29e7429980065d35','status','opted_out','active','paused','participant sent STOP: consent to messages withdrawn','2026-01-06 04:57:49.228422');
INSERT INTO transition VALUES(8,'p_840ec91ab387d2ad','status','paused_by_researcher','active','paused','on holiday','2026-01-06 04:57:52.132908');
INSERT INTO transition VALUES(9,'p_f1a2cedf16640d08','status','withdrawn_by_researcher','active','withdrawn','moved away','2026-01-06 04:57:55.133328');
INSERT INTO transition VALUES(10,'p_3b18210980e0fbfd','status','opted_out','active','paused','participant sent STOP: consent to messages withdrawn','2026-01-06 04:58:01.418327');
INSERT INTO transition VALUES(11,'p_3b18210980e0fbfd','status','opted_in','paused','active','participant sent START','2026-01-06 04:58:06.211649');
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
INSERT INTO schedule VALUES('s_ad615904','p_0095aed73f763dbc','fixed','00:01',NULL,NULL,0,1,'2026-01-06 04:57:45.735766','2026-01-06 04:57:45.735766');
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
INSERT INTO timer VALUES(1,'p_0095aed73f763dbc','feedback_check_in','2026-01-06 05:12:45.735671','{}','cancelled','daily prompt sent','2026-01-06 04:57:45.735766','2026-01-06 05:01:00.198784');
INSERT INTO timer VALUES(2,'p_0095aed73f763dbc','reminder','2026-01-06 10:01:00.150642','{"prompt_inbox_id": 12}','pending','daily prompt sent','2026-01-06 05:01:00.198784',NULL);
INSERT INTO timer VALUES(3,'p_0095aed73f763dbc','feedback_check_in','2026-01-06 05:16:00.150642','{}','pending','daily prompt sent','2026-01-06 05:01:00.198784',NULL);
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
INSERT INTO inbox VALUES(1,'enroll:p_0095aed73f763dbc','p_0095aed73f763dbc','enroll','{}',NULL,'done',0,'2026-01-06 04:57:32.981233','2026-01-06 04:57:32.981233','2026-01-06 04:57:34.898614',NULL);
INSERT INTO inbox VALUES(2,'enroll:p_29e7429980065d35','p_29e7429980065d35','enroll','{}',NULL,'done',0,'2026-01-06 04:57:34.871454','2026-01-06 04:57:34.871454','2026-01-06 04:57:36.064799',NULL);
INSERT INTO inbox VALUES(3,'enroll:p_840ec91ab387d2ad','p_840ec91ab387d2ad','enroll','{}',NULL,'done',0,'2026-01-06 04:57:37.325064','2026-01-06 04:57:37.325064','2026-01-06 04:57:38.107474',NULL);
INSERT INTO inbox VALUES(4,'enroll:p_f1a2cedf16640d08','p_f1a2cedf16640d08','enroll','{}',NULL,'done',0,'2026-01-06 04:57:39.561090','2026-01-06 04:57:39.561090','2026-01-06 04:57:40.075958',NULL);
INSERT INTO inbox VALUES(5,'enroll:p_3b18210980e0fbfd','p_3b18210980e0fbfd','enroll','{}',NULL,'done',0,'2026-01-06 04:57:41.682428','2026-01-06 04:57:41.682428','2026-01-06 04:57:42.124629',NULL);
INSERT INTO inbox VALUES(6,'wa:sim-c79a313d9785aa68','p_0095aed73f763dbc','message','{}',6,'done',0,'2026-01-06 04:57:45.090956','2026-01-06 04:57:45.090956','2026-01-06 04:57:45.735766',NULL);
INSERT INTO inbox VALUES(7,'wa:sim-965c67794ee86292','p_29e7429980065d35','message','{}',8,'done',0,'2026-01-06 04:57:48.102981','2026-01-06 04:57:48.102981','2026-01-06 04:57:49.228422',NULL);
INSERT INTO inbox VALUES(8,'sync:p_840ec91ab387d2ad:2f272e5c','p_840ec91ab387d2ad','sync','{}',NULL,'done',0,'2026-01-06 04:57:52.132908','2026-01-06 04:57:52.132908','2026-01-06 04:57:52.786651',NULL);
INSERT INTO inbox VALUES(9,'sync:p_f1a2cedf16640d08:8714635e','p_f1a2cedf16640d08','sync','{}',NULL,'done',0,'2026-01-06 04:57:55.133328','2026-01-06 04:57:55.133328','2026-01-06 04:57:56.348316',NULL);
INSERT INTO inbox VALUES(10,'wa:sim-ef8b163adf34a92c','p_3b18210980e0fbfd','message','{}',10,'done',0,'2026-01-06 04:58:00.473017','2026-01-06 04:58:00.473017','2026-01-06 04:58:01.418327',NULL);
INSERT INTO inbox VALUES(11,'wa:sim-09479de0e34c723e','p_3b18210980e0fbfd','message','{}',12,'done',0,'2026-01-06 04:58:05.549654','2026-01-06 04:58:05.549654','2026-01-06 04:58:06.211649',NULL);
INSERT INTO inbox VALUES(12,'prompt:p_0095aed73f763dbc:s_ad615904:2026-01-06','p_0095aed73f763dbc','daily_prompt','{"schedule_id": "s_ad615904", "local_date": "2026-01-06", "due_at": "2026-01-06T05:01:00+00:00"}',NULL,'done',0,'2026-01-06 05:01:00.046471','2026-01-06 05:01:00.046471','2026-01-06 05:01:00.198784',NULL);
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
INSERT INTO outbox VALUES(1,'reply:1','p_0095aed73f763dbc',1,'sent',1,'2026-01-06 04:57:34.898614','2026-01-06 04:57:34.948008','2026-01-06 04:57:35.011474','dry-1cb6023b5a590836',NULL,'2026-01-06 04:57:34.898614');
INSERT INTO outbox VALUES(2,'reply:2','p_29e7429980065d35',2,'sent',1,'2026-01-06 04:57:36.064799','2026-01-06 04:57:36.178429','2026-01-06 04:57:36.180157','dry-8bb272f000992547',NULL,'2026-01-06 04:57:36.064799');
INSERT INTO outbox VALUES(3,'reply:3','p_840ec91ab387d2ad',3,'sent',1,'2026-01-06 04:57:38.107474','2026-01-06 04:57:38.118513','2026-01-06 04:57:38.120267','dry-79a9373cb4cd0c80',NULL,'2026-01-06 04:57:38.107474');
INSERT INTO outbox VALUES(4,'reply:4','p_f1a2cedf16640d08',4,'sent',1,'2026-01-06 04:57:40.075958','2026-01-06 04:57:40.100186','2026-01-06 04:57:40.101789','dry-d2db830562436a1f',NULL,'2026-01-06 04:57:40.075958');
INSERT INTO outbox VALUES(5,'reply:5','p_3b18210980e0fbfd',5,'sent',1,'2026-01-06 04:57:42.124629','2026-01-06 04:57:42.145290','2026-01-06 04:57:42.146441','dry-d782db512e7359c0',NULL,'2026-01-06 04:57:42.124629');
INSERT INTO outbox VALUES(6,'reply:6','p_0095aed73f763dbc',7,'sent',1,'2026-01-06 04:57:45.735766','2026-01-06 04:57:45.815485','2026-01-06 04:57:45.823355','dry-7195f36aad95b054',NULL,'2026-01-06 04:57:45.735766');
INSERT INTO outbox VALUES(7,'reply:7','p_29e7429980065d35',9,'sent',1,'2026-01-06 04:57:49.228422','2026-01-06 04:57:49.268832','2026-01-06 04:57:49.271106','dry-bc27a69324120056',NULL,'2026-01-06 04:57:49.228422');
INSERT INTO outbox VALUES(8,'reply:10','p_3b18210980e0fbfd',11,'sent',1,'2026-01-06 04:58:01.418327','2026-01-06 04:58:01.452209','2026-01-06 04:58:01.455948','dry-0b3fb8cdd7a509ed',NULL,'2026-01-06 04:58:01.418327');
INSERT INTO outbox VALUES(9,'reply:11','p_3b18210980e0fbfd',13,'sent',1,'2026-01-06 04:58:06.211649','2026-01-06 04:58:06.259579','2026-01-06 04:58:06.280185','dry-5d457c843cc9686b',NULL,'2026-01-06 04:58:06.211649');
INSERT INTO outbox VALUES(10,'prompt-text:12','p_0095aed73f763dbc',14,'sent',1,'2026-01-06 05:01:00.198784','2026-01-06 05:01:00.232485','2026-01-06 05:01:00.237609','dry-af8269b2479d24b5',NULL,'2026-01-06 05:01:00.198784');
INSERT INTO outbox VALUES(11,'prompt-poll:12','p_0095aed73f763dbc',15,'sent',1,'2026-01-06 05:01:00.198784','2026-01-06 05:01:00.254512','2026-01-06 05:01:00.257937','dry-7a57dea6bb03186d',NULL,'2026-01-06 05:01:00.198784');
INSERT INTO outbox VALUES(12,'intensity-poll:12','p_0095aed73f763dbc',16,'sent',1,'2026-01-06 05:01:00.198784','2026-01-06 05:01:00.276479','2026-01-06 05:01:00.281904','dry-d87af55dcde6e6d2',NULL,'2026-01-06 05:01:00.198784');
CREATE TABLE apscheduler_jobs (
	id VARCHAR(191) NOT NULL, 
	next_run_time FLOAT, 
	job_state BLOB NOT NULL, 
	PRIMARY KEY (id)
);
INSERT INTO apscheduler_jobs VALUES('daily:p_0095aed73f763dbc:s_ad615904',1767762060.0,X'80059554020000000000007d94288c0776657273696f6e944b018c026964948c236461696c793a705f303039356165643733663736336462633a735f6164363135393034948c0466756e63948c2b70726f6d7074706970652e7363686564756c696e672e6a6f62733a6461696c795f70726f6d70745f647565948c0774726967676572948c1d70726f6d7074706970652e7363686564756c696e672e74726967676572948c124461696c7950726f6d7074547269676765729493942981947d942868014b018c046b696e64948c056669786564948c0a68616269745f74696d65948c0530303a3031948c0c77696e646f775f7374617274944e8c0a77696e646f775f656e64944e8c0c707265705f6d696e75746573944b008c0473656564948c0a735f6164363135393034948c047a6f6e65948c0f416d65726963612f546f726f6e746f9475628c086578656375746f72948c0764656661756c74948c046172677394298c066b7761726773947d94288c0e7061727469636970616e745f6964948c12705f30303935616564373366373633646263948c0b7363686564756c655f6964946814758c046e616d65948c106461696c795f70726f6d70745f647565948c126d6973666972655f67726163655f74696d65944d100e8c08636f616c6573636594888c0d6d61785f696e7374616e636573944b018c0d6e6578745f72756e5f74696d65948c086461746574696d65948c086461746574696d65949394430a07ea01070501000000009468258c0874696d657a6f6e6594939468258c0974696d6564656c74619493944b004b004b00879452948594529486945294752e');
INSERT INTO apscheduler_jobs VALUES('reminder:p_0095aed73f763dbc',1767693660.1506419181,X'800595bd010000000000007d94288c0776657273696f6e944b018c026964948c1b72656d696e6465723a705f30303935616564373366373633646263948c0466756e63948c2470726f6d7074706970652e7363686564756c696e672e6a6f62733a74696d65725f647565948c0774726967676572948c1961707363686564756c65722e74726967676572732e64617465948c0b44617465547269676765729493942981947d942868014b018c0872756e5f64617465948c086461746574696d65948c086461746574696d65949394430a07ea01060a0100024c7294680d8c0874696d657a6f6e65949394680d8c0974696d6564656c74619493944b004b004b0087945294859452948694529475628c086578656375746f72948c0764656661756c74948c046172677394298c066b7761726773947d94288c0e7061727469636970616e745f6964948c12705f30303935616564373366373633646263948c0874696d65725f6964944b02758c046e616d65948c0974696d65725f647565948c126d6973666972655f67726163655f74696d65944d100e8c08636f616c6573636594888c0d6d61785f696e7374616e636573944b018c0d6e6578745f72756e5f74696d6594681a752e');
INSERT INTO apscheduler_jobs VALUES('feedback_check_in:p_0095aed73f763dbc',1767676560.1506419182,X'800595c6010000000000007d94288c0776657273696f6e944b018c026964948c24666565646261636b5f636865636b5f696e3a705f30303935616564373366373633646263948c0466756e63948c2470726f6d7074706970652e7363686564756c696e672e6a6f62733a74696d65725f647565948c0774726967676572948c1961707363686564756c65722e74726967676572732e64617465948c0b44617465547269676765729493942981947d942868014b018c0872756e5f64617465948c086461746574696d65948c086461746574696d65949394430a07ea0106051000024c7294680d8c0874696d657a6f6e65949394680d8c0974696d6564656c74619493944b004b004b0087945294859452948694529475628c086578656375746f72948c0764656661756c74948c046172677394298c066b7761726773947d94288c0e7061727469636970616e745f6964948c12705f30303935616564373366373633646263948c0874696d65725f6964944b03758c046e616d65948c0974696d65725f647565948c126d6973666972655f67726163655f74696d65944d100e8c08636f616c6573636594888c0d6d61785f696e7374616e636573944b018c0d6e6578745f72756e5f74696d6594681a752e');
CREATE UNIQUE INDEX ix_participant_phone ON participant (phone);
CREATE INDEX ix_participant_lid ON participant (lid);
CREATE INDEX ix_lid_mapping_phone ON lid_mapping (phone);
CREATE INDEX ix_message_wa_message_id ON message (wa_message_id);
CREATE INDEX ix_message_participant_id_id ON message (participant_id, id);
CREATE INDEX ix_transition_participant_id ON transition (participant_id);
CREATE INDEX ix_schedule_participant_active ON schedule (participant_id, active);
CREATE INDEX ix_timer_status_due ON timer (status, due_at);
CREATE INDEX ix_timer_participant_status ON timer (participant_id, status);
CREATE INDEX ix_inbox_participant_status ON inbox (participant_id, status, id);
CREATE INDEX ix_inbox_status_available ON inbox (status, available_at);
CREATE INDEX ix_outbox_participant_id ON outbox (participant_id, id);
CREATE INDEX ix_outbox_status_available ON outbox (status, available_at);
CREATE INDEX ix_apscheduler_jobs_next_run_time ON apscheduler_jobs (next_run_time);
COMMIT;
