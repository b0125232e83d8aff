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
INSERT INTO participant VALUES('p_a9f1188753d09c14','+14165550140',NULL,'Ana','America/Toronto','active',NULL,'','2026-01-06 04:57:33.394563','2026-01-06 04:57:33.394563');
INSERT INTO participant VALUES('p_12613ff1fcb0d45d','+14165550141',NULL,'Ben','America/Toronto','paused','participant','','2026-01-06 04:57:37.170305','2026-01-06 04:57:59.752486');
INSERT INTO participant VALUES('p_e1c4dae61c3d0a89','+14165550142',NULL,'Cleo','America/Toronto','paused','researcher','','2026-01-06 04:57:40.017566','2026-01-06 04:58:03.732314');
INSERT INTO participant VALUES('p_ab3a660cc5e25839','+14165550143',NULL,'Dev','America/Toronto','withdrawn',NULL,'','2026-01-06 04:57:44.596514','2026-01-06 04:58:07.669158');
INSERT INTO participant VALUES('p_6305ebc470f8d2ed','+14165550144',NULL,'Eli','America/Toronto','active',NULL,'','2026-01-06 04:57:48.751376','2026-01-06 04:58:17.302447');
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
INSERT INTO conversation VALUES('p_a9f1188753d09c14','FEEDBACK','{"habit_domain": "walking", "prompt_anchor": "after dinner", "motivational_frame": "to sleep better", "preferred_time": "00:01", "updated_at": "2026-01-06T04:57:54.718697+00:00", "last_habit_prompt": "Walk around the block right after dinner tonight: ten minutes is plenty.", "last_prompt_sent_at": "2026-01-06T05:01:00.516964+00:00", "last_prompt_vote": null, "intensity_poll_date": "2026-01-06", "counters": {"prompts_sent": 1, "successes": 0, "misses": 0, "current_streak": 0, "best_streak": 0, "last_success_date": null, "last_miss_date": null}, "intensity_poll_message": 16}','{}','',0,2,4,'2026-01-06 05:01:00.546256');
INSERT INTO conversation VALUES('p_12613ff1fcb0d45d','INTAKE','{}','{}','',0,1,3,'2026-01-06 04:57:59.752486');
INSERT INTO conversation VALUES('p_e1c4dae61c3d0a89','INTAKE','{}','{}','',0,1,3,'2026-01-06 04:58:03.732314');
INSERT INTO conversation VALUES('p_ab3a660cc5e25839','INTAKE','{}','{}','',0,1,3,'2026-01-06 04:58:07.669158');
INSERT INTO conversation VALUES('p_6305ebc470f8d2ed','INTAKE','{}','{}','',0,1,4,'2026-01-06 04:58:17.302447');
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
INSERT INTO message VALUES(1,'p_a9f1188753d09c14','out','assistant','greeting','Walk around the block right after dinner tonight: ten minutes is plenty.','{}','dry-22e6f0cc5b19cc3a','sent','2026-01-06 04:57:37.452162','2026-01-06 04:57:37.488443');
INSERT INTO message VALUES(2,'p_12613ff1fcb0d45d','out','assistant','greeting','Walk around the block right after dinner tonight: ten minutes is plenty.','{}','dry-343d2869fad7d3a1','sent','2026-01-06 04:57:38.572028','2026-01-06 04:57:38.635115');
INSERT INTO message VALUES(3,'p_e1c4dae61c3d0a89','out','assistant','greeting','Walk around the block right after dinner tonight: ten minutes is plenty.','{}','dry-720499a768dd2803','sent','2026-01-06 04:57:41.130357','2026-01-06 04:57:41.141673');
INSERT INTO message VALUES(4,'p_ab3a660cc5e25839','out','assistant','greeting','Walk around the block right after dinner tonight: ten minutes is plenty.','{}','dry-23b6744fe724af90','sent','2026-01-06 04:57:45.355887','2026-01-06 04:57:45.412017');
INSERT INTO message VALUES(5,'p_6305ebc470f8d2ed','out','assistant','greeting','Walk around the block right after dinner tonight: ten minutes is plenty.','{}','dry-6198677531e7b843','sent','2026-01-06 04:57:49.406356','2026-01-06 04:57:49.472601');
INSERT INTO message VALUES(6,'p_a9f1188753d09c14','in','user','text','I''d like to walk around the block after dinner, just after midnight works','{}','sim-1336f595be37e02e','answered','2026-01-06 04:57:54.521115',NULL);
INSERT INTO message VALUES(7,'p_a9f1188753d09c14','out','assistant','text','Lovely, your plan is set. I''ll nudge you each day.','{}','dry-7148557c69277ed1','sent','2026-01-06 04:57:54.779490','2026-01-06 04:57:54.878939');
INSERT INTO message VALUES(8,'p_12613ff1fcb0d45d','in','user','text','STOP','{}','sim-18c18a01fe660371','answered','2026-01-06 04:57:59.193403',NULL);
INSERT INTO message VALUES(9,'p_12613ff1fcb0d45d','out','assistant','command','Okay, you''re unsubscribed: you won''t get any more daily nudges, reminders or check-ins from this study. If you change your mind, send START. Send HELP for information.','{}','dry-bb63861f3f4d61fa','sent','2026-01-06 04:57:59.752486','2026-01-06 04:57:59.828012');
INSERT INTO message VALUES(10,'p_6305ebc470f8d2ed','in','user','text','STOP','{}','sim-b1b58ad18b9df680','answered','2026-01-06 04:58:12.125727',NULL);
INSERT INTO message VALUES(11,'p_6305ebc470f8d2ed','out','assistant','command','Okay, you''re unsubscribed: you won''t get any more daily nudges, reminders or check-ins from this study. If you change your mind, send START. Send HELP for information.','{}','dry-31ca8d1d5980da53','sent','2026-01-06 04:58:13.210010','2026-01-06 04:58:13.225622');
INSERT INTO message VALUES(12,'p_6305ebc470f8d2ed','in','user','text','START','{}','sim-a8e02c11237e59fa','answered','2026-01-06 04:58:16.763790',NULL);
INSERT INTO message VALUES(13,'p_6305ebc470f8d2ed','out','assistant','command','Welcome back! Your daily nudges are switched on again.','{}','dry-195ecbb0836676c5','sent','2026-01-06 04:58:17.302447','2026-01-06 04:58:17.326093');
INSERT INTO message VALUES(14,'p_a9f1188753d09c14','out','assistant','prompt','Walk around the block right after dinner tonight: ten minutes is plenty.','{}','dry-ffeb83a92437e89c','sent','2026-01-06 05:01:00.546256','2026-01-06 05:01:00.640199');
INSERT INTO message VALUES(15,'p_a9f1188753d09c14','out','assistant','poll','Did you do it?','{"options": ["Done", "Not this time"], "purpose": "done"}','dry-fae158344a1fda58','sent','2026-01-06 05:01:00.546256','2026-01-06 05:01:00.645817');
INSERT INTO message VALUES(16,'p_a9f1188753d09c14','out','assistant','poll','How do these daily steps feel to you?','{"options": ["A bit lighter, please", "Just right", "A bit more, please"], "purpose": "intensity"}','dry-47cc47ddb8e6f01e','sent','2026-01-06 05:01:00.546256','2026-01-06 05:01:00.650266');
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
INSERT INTO transition VALUES(1,'p_a9f1188753d09c14','status','enrolled',NULL,'active','enrolled by a researcher','2026-01-06 04:57:33.394563');
INSERT INTO transition VALUES(2,'p_12613ff1fcb0d45d','status','enrolled',NULL,'active','enrolled by a researcher','2026-01-06 04:57:37.170305');
INSERT INTO transition VALUES(3,'p_e1c4dae61c3d0a89','status','enrolled',NULL,'active','enrolled by a researcher','2026-01-06 04:57:40.017566');
INSERT INTO transition VALUES(4,'p_ab3a660cc5e25839','status','enrolled',NULL,'active','enrolled by a researcher','2026-01-06 04:57:44.596514');
INSERT INTO transition VALUES(5,'p_6305ebc470f8d2ed','status','enrolled',NULL,'active','enrolled by a researcher','2026-01-06 04:57:48.751376');
INSERT INTO transition VALUES(6,'p_a9f1188753d09c14','sub_state','intake_to_feedback','INTAKE','FEEDBACK','the plan is set','2026-01-06 04:57:54.779490');
INSERT INTO transition VALUES(7,'p_12613ff1fcb0d45d','status','opted_out','active','paused','participant sent STOP: consent to messages withdrawn','2026-01-06 04:57:59.752486');
INSERT INTO transition VALUES(8,'p_e1c4dae61c3d0a89','status','paused_by_researcher','active','paused','on holiday','2026-01-06 04:58:03.732314');
INSERT INTO transition VALUES(9,'p_ab3a660cc5e25839','status','withdrawn_by_researcher','active','withdrawn','moved away','2026-01-06 04:58:07.669158');
INSERT INTO transition VALUES(10,'p_6305ebc470f8d2ed','status','opted_out','active','paused','participant sent STOP: consent to messages withdrawn','2026-01-06 04:58:13.210010');
INSERT INTO transition VALUES(11,'p_6305ebc470f8d2ed','status','opted_in','paused','active','participant sent START','2026-01-06 04:58:17.302447');
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
INSERT INTO schedule VALUES('s_f8f941a5','p_a9f1188753d09c14','fixed','00:01',NULL,NULL,0,1,'2026-01-06 04:57:54.779490','2026-01-06 04:57:54.779490');
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
INSERT INTO timer VALUES(1,'p_a9f1188753d09c14','feedback_check_in','2026-01-06 05:12:54.779373','{}','cancelled','daily prompt sent','2026-01-06 04:57:54.779490','2026-01-06 05:01:00.546256');
INSERT INTO timer VALUES(2,'p_a9f1188753d09c14','reminder','2026-01-06 10:01:00.516964','{"prompt_inbox_id": 12}','pending','daily prompt sent','2026-01-06 05:01:00.546256',NULL);
INSERT INTO timer VALUES(3,'p_a9f1188753d09c14','feedback_check_in','2026-01-06 05:16:00.516964','{}','pending','daily prompt sent','2026-01-06 05:01:00.546256',NULL);
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
INSERT INTO inbox VALUES(1,'enroll:p_a9f1188753d09c14','p_a9f1188753d09c14','enroll','{}',NULL,'done',0,'2026-01-06 04:57:33.394563','2026-01-06 04:57:33.394563','2026-01-06 04:57:37.452162',NULL);
INSERT INTO inbox VALUES(2,'enroll:p_12613ff1fcb0d45d','p_12613ff1fcb0d45d','enroll','{}',NULL,'done',0,'2026-01-06 04:57:37.170305','2026-01-06 04:57:37.170305','2026-01-06 04:57:38.572028',NULL);
INSERT INTO inbox VALUES(3,'enroll:p_e1c4dae61c3d0a89','p_e1c4dae61c3d0a89','enroll','{}',NULL,'done',0,'2026-01-06 04:57:40.017566','2026-01-06 04:57:40.017566','2026-01-06 04:57:41.130357',NULL);
INSERT INTO inbox VALUES(4,'enroll:p_ab3a660cc5e25839','p_ab3a660cc5e25839','enroll','{}',NULL,'done',0,'2026-01-06 04:57:44.596514','2026-01-06 04:57:44.596514','2026-01-06 04:57:45.355887',NULL);
INSERT INTO inbox VALUES(5,'enroll:p_6305ebc470f8d2ed','p_6305ebc470f8d2ed','enroll','{}',NULL,'done',0,'2026-01-06 04:57:48.751376','2026-01-06 04:57:48.751376','2026-01-06 04:57:49.406356',NULL);
INSERT INTO inbox VALUES(6,'wa:sim-1336f595be37e02e','p_a9f1188753d09c14','message','{}',6,'done',0,'2026-01-06 04:57:54.521115','2026-01-06 04:57:54.521115','2026-01-06 04:57:54.779490',NULL);
INSERT INTO inbox VALUES(7,'wa:sim-18c18a01fe660371','p_12613ff1fcb0d45d','message','{}',8,'done',0,'2026-01-06 04:57:59.193403','2026-01-06 04:57:59.193403','2026-01-06 04:57:59.752486',NULL);
INSERT INTO inbox VALUES(8,'sync:p_e1c4dae61c3d0a89:2739dc8d','p_e1c4dae61c3d0a89','sync','{}',NULL,'done',0,'2026-01-06 04:58:03.732314','2026-01-06 04:58:03.732314','2026-01-06 04:58:03.860516',NULL);
INSERT INTO inbox VALUES(9,'sync:p_ab3a660cc5e25839:5ca85cd4','p_ab3a660cc5e25839','sync','{}',NULL,'done',0,'2026-01-06 04:58:07.669158','2026-01-06 04:58:07.669158','2026-01-06 04:58:08.576282',NULL);
INSERT INTO inbox VALUES(10,'wa:sim-b1b58ad18b9df680','p_6305ebc470f8d2ed','message','{}',10,'done',0,'2026-01-06 04:58:12.125727','2026-01-06 04:58:12.125727','2026-01-06 04:58:13.210010',NULL);
INSERT INTO inbox VALUES(11,'wa:sim-a8e02c11237e59fa','p_6305ebc470f8d2ed','message','{}',12,'done',0,'2026-01-06 04:58:16.763790','2026-01-06 04:58:16.763790','2026-01-06 04:58:17.302447',NULL);
INSERT INTO inbox VALUES(12,'prompt:p_a9f1188753d09c14:s_f8f941a5:2026-01-06','p_a9f1188753d09c14','daily_prompt','{"schedule_id": "s_f8f941a5", "local_date": "2026-01-06", "due_at": "2026-01-06T05:01:00+00:00"}',NULL,'done',0,'2026-01-06 05:01:00.416279','2026-01-06 05:01:00.416279','2026-01-06 05:01:00.546256',NULL);
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
INSERT INTO outbox VALUES(1,'reply:1','p_a9f1188753d09c14',1,'sent',1,'2026-01-06 04:57:37.452162','2026-01-06 04:57:37.472942','2026-01-06 04:57:37.488443','dry-22e6f0cc5b19cc3a',NULL,'2026-01-06 04:57:37.452162');
INSERT INTO outbox VALUES(2,'reply:2','p_12613ff1fcb0d45d',2,'sent',1,'2026-01-06 04:57:38.572028','2026-01-06 04:57:38.632215','2026-01-06 04:57:38.635115','dry-343d2869fad7d3a1',NULL,'2026-01-06 04:57:38.572028');
INSERT INTO outbox VALUES(3,'reply:3','p_e1c4dae61c3d0a89',3,'sent',1,'2026-01-06 04:57:41.130357','2026-01-06 04:57:41.139347','2026-01-06 04:57:41.141673','dry-720499a768dd2803',NULL,'2026-01-06 04:57:41.130357');
INSERT INTO outbox VALUES(4,'reply:4','p_ab3a660cc5e25839',4,'sent',1,'2026-01-06 04:57:45.355887','2026-01-06 04:57:45.409791','2026-01-06 04:57:45.412017','dry-23b6744fe724af90',NULL,'2026-01-06 04:57:45.355887');
INSERT INTO outbox VALUES(5,'reply:5','p_6305ebc470f8d2ed',5,'sent',1,'2026-01-06 04:57:49.406356','2026-01-06 04:57:49.468314','2026-01-06 04:57:49.472601','dry-6198677531e7b843',NULL,'2026-01-06 04:57:49.406356');
INSERT INTO outbox VALUES(6,'reply:6','p_a9f1188753d09c14',7,'sent',1,'2026-01-06 04:57:54.779490','2026-01-06 04:57:54.854282','2026-01-06 04:57:54.878939','dry-7148557c69277ed1',NULL,'2026-01-06 04:57:54.779490');
INSERT INTO outbox VALUES(7,'reply:7','p_12613ff1fcb0d45d',9,'sent',1,'2026-01-06 04:57:59.752486','2026-01-06 04:57:59.801933','2026-01-06 04:57:59.828012','dry-bb63861f3f4d61fa',NULL,'2026-01-06 04:57:59.752486');
INSERT INTO outbox VALUES(8,'reply:10','p_6305ebc470f8d2ed',11,'sent',1,'2026-01-06 04:58:13.210010','2026-01-06 04:58:13.224543','2026-01-06 04:58:13.225622','dry-31ca8d1d5980da53',NULL,'2026-01-06 04:58:13.210010');
INSERT INTO outbox VALUES(9,'reply:11','p_6305ebc470f8d2ed',13,'sent',1,'2026-01-06 04:58:17.302447','2026-01-06 04:58:17.324276','2026-01-06 04:58:17.326093','dry-195ecbb0836676c5',NULL,'2026-01-06 04:58:17.302447');
INSERT INTO outbox VALUES(10,'prompt-text:12','p_a9f1188753d09c14',14,'sent',1,'2026-01-06 05:01:00.546256','2026-01-06 05:01:00.631761','2026-01-06 05:01:00.640199','dry-ffeb83a92437e89c',NULL,'2026-01-06 05:01:00.546256');
INSERT INTO outbox VALUES(11,'prompt-poll:12','p_a9f1188753d09c14',15,'sent',1,'2026-01-06 05:01:00.546256','2026-01-06 05:01:00.644106','2026-01-06 05:01:00.645817','dry-fae158344a1fda58',NULL,'2026-01-06 05:01:00.546256');
INSERT INTO outbox VALUES(12,'intensity-poll:12','p_a9f1188753d09c14',16,'sent',1,'2026-01-06 05:01:00.546256','2026-01-06 05:01:00.648754','2026-01-06 05:01:00.650266','dry-47cc47ddb8e6f01e',NULL,'2026-01-06 05:01:00.546256');
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
INSERT INTO prompt_delivery VALUES(1,'p_a9f1188753d09c14',12,'s_f8f941a5','2026-01-06','Walk around the block right after dinner tonight: ten minutes is plenty.',14,15,'2026-01-06 05:01:00.516964',NULL,NULL,0,NULL,NULL);
CREATE TABLE apscheduler_jobs (
	id VARCHAR(191) NOT NULL, 
	next_run_time FLOAT, 
	job_state BLOB NOT NULL, 
	PRIMARY KEY (id)
);
INSERT INTO apscheduler_jobs VALUES('daily:p_a9f1188753d09c14:s_f8f941a5',1767762060.0,X'80059554020000000000007d94288c0776657273696f6e944b018c026964948c236461696c793a705f613966313138383735336430396331343a735f6638663934316135948c0466756e63948c2b70726f6d7074706970652e7363686564756c696e672e6a6f62733a6461696c795f70726f6d70745f647565948c0774726967676572948c1d70726f6d7074706970652e7363686564756c696e672e74726967676572948c124461696c7950726f6d7074547269676765729493942981947d942868014b018c046b696e64948c056669786564948c0a68616269745f74696d65948c0530303a3031948c0c77696e646f775f7374617274944e8c0a77696e646f775f656e64944e8c0c707265705f6d696e75746573944b008c0473656564948c0a735f6638663934316135948c047a6f6e65948c0f416d65726963612f546f726f6e746f9475628c086578656375746f72948c0764656661756c74948c046172677394298c066b7761726773947d94288c0e7061727469636970616e745f6964948c12705f61396631313838373533643039633134948c0b7363686564756c655f6964946814758c046e616d65948c106461696c795f70726f6d70745f647565948c126d6973666972655f67726163655f74696d65944d100e8c08636f616c6573636594888c0d6d61785f696e7374616e636573944b018c0d6e6578745f72756e5f74696d65948c086461746574696d65948c086461746574696d65949394430a07ea01070501000000009468258c0874696d657a6f6e6594939468258c0974696d6564656c74619493944b004b004b00879452948594529486945294752e');
INSERT INTO apscheduler_jobs VALUES('reminder:p_a9f1188753d09c14',1767693660.5169639587,X'800595bd010000000000007d94288c0776657273696f6e944b018c026964948c1b72656d696e6465723a705f61396631313838373533643039633134948c0466756e63948c2470726f6d7074706970652e7363686564756c696e672e6a6f62733a74696d65725f647565948c0774726967676572948c1961707363686564756c65722e74726967676572732e64617465948c0b44617465547269676765729493942981947d942868014b018c0872756e5f64617465948c086461746574696d65948c086461746574696d65949394430a07ea01060a010007e36494680d8c0874696d657a6f6e65949394680d8c0974696d6564656c74619493944b004b004b0087945294859452948694529475628c086578656375746f72948c0764656661756c74948c046172677394298c066b7761726773947d94288c0e7061727469636970616e745f6964948c12705f61396631313838373533643039633134948c0874696d65725f6964944b02758c046e616d65948c0974696d65725f647565948c126d6973666972655f67726163655f74696d65944d100e8c08636f616c6573636594888c0d6d61785f696e7374616e636573944b018c0d6e6578745f72756e5f74696d6594681a752e');
INSERT INTO apscheduler_jobs VALUES('feedback_check_in:p_a9f1188753d09c14',1767676560.5169639587,X'800595c6010000000000007d94288c0776657273696f6e944b018c026964948c24666565646261636b5f636865636b5f696e3a705f61396631313838373533643039633134948c0466756e63948c2470726f6d7074706970652e7363686564756c696e672e6a6f62733a74696d65725f647565948c0774726967676572948c1961707363686564756c65722e74726967676572732e64617465948c0b44617465547269676765729493942981947d942868014b018c0872756e5f64617465948c086461746574696d65948c086461746574696d65949394430a07ea010605100007e36494680d8c0874696d657a6f6e65949394680d8c0974696d6564656c74619493944b004b004b0087945294859452948694529475628c086578656375746f72948c0764656661756c74948c046172677394298c066b7761726773947d94288c0e7061727469636970616e745f6964948c12705f61396631313838373533643039633134948c0874696d65725f6964944b03758c046e616d65948c0974696d65725f647565948c126d6973666972655f67726163655f74696d65944d100e8c08636f616c6573636594888c0d6d61785f696e7374616e636573944b018c0d6e6578745f72756e5f74696d6594681a752e');
CREATE INDEX ix_participant_lid ON participant (lid);
CREATE UNIQUE INDEX ix_participant_phone ON participant (phone);
CREATE INDEX ix_lid_mapping_phone ON lid_mapping (phone);
CREATE INDEX ix_message_wa_message_id ON message (wa_message_id);
CREATE INDEX ix_message_participant_id_id ON message (participant_id, id);
CREATE INDEX ix_transition_participant_id ON transition (participant_id);
CREATE INDEX ix_schedule_participant_active ON schedule (participant_id, active);
CREATE INDEX ix_timer_participant_status ON timer (participant_id, status);
CREATE INDEX ix_timer_status_due ON timer (status, due_at);
CREATE INDEX ix_tone_event_participant_id ON tone_event (participant_id);
CREATE INDEX ix_inbox_participant_status ON inbox (participant_id, status, id);
CREATE INDEX ix_inbox_status_available ON inbox (status, available_at);
CREATE INDEX ix_outbox_participant_id ON outbox (participant_id, id);
CREATE INDEX ix_outbox_status_available ON outbox (status, available_at);
CREATE INDEX ix_prompt_delivery_poll_message_id ON prompt_delivery (poll_message_id);
CREATE INDEX ix_prompt_delivery_participant_id ON prompt_delivery (participant_id, id);
CREATE INDEX ix_apscheduler_jobs_next_run_time ON apscheduler_jobs (next_run_time);
COMMIT;
