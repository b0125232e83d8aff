PRAGMA foreign_keys=OFF;
BEGIN TRANSACTION;
CREATE TABLE participant (
	id VARCHAR NOT NULL, 
	phone VARCHAR NOT NULL, 
	lid VARCHAR, 
	name VARCHAR NOT NULL, 
	timezone VARCHAR NOT NULL, 
	status VARCHAR NOT NULL, 
	opted_out BOOLEAN NOT NULL, 
	researcher_paused BOOLEAN NOT NULL, 
	paused_by VARCHAR, 
	background TEXT NOT NULL, 
	enrolled_at DATETIME NOT NULL, 
	updated_at DATETIME NOT NULL, 
	erased_at DATETIME, 
	erased_by VARCHAR, 
	PRIMARY KEY (id)
);
INSERT INTO participant VALUES('p_b4b27856b289748e','+14165550140',NULL,'Ana','America/Toronto','active',0,0,NULL,'','2026-01-06 04:57:33.522111','2026-01-06 04:57:33.522111',NULL,NULL);
INSERT INTO participant VALUES('p_89f1f1831e2460bc','+14165550141',NULL,'Ben','America/Toronto','paused',1,0,'participant','','2026-01-06 04:57:36.616141','2026-01-06 04:57:52.300238',NULL,NULL);
INSERT INTO participant VALUES('p_30e96e356f1975d2','+14165550142',NULL,'Cleo','America/Toronto','paused',0,1,'researcher','','2026-01-06 04:57:38.015188','2026-01-06 04:57:55.011738',NULL,NULL);
INSERT INTO participant VALUES('p_8d84fb3484048822','+14165550143',NULL,'Dev','America/Toronto','withdrawn',0,0,NULL,'','2026-01-06 04:57:41.172851','2026-01-06 04:57:58.927073',NULL,NULL);
INSERT INTO participant VALUES('p_b5d1cfba817b7efc','+14165550144',NULL,'Eli','America/Toronto','active',0,0,NULL,'','2026-01-06 04:57:44.130225','2026-01-06 04:58:06.671329',NULL,NULL);
CREATE TABLE receipt (
	id INTEGER NOT NULL, 
	wa_message_id VARCHAR NOT NULL, 
	kind VARCHAR NOT NULL, 
	at DATETIME NOT NULL, 
	received_at DATETIME NOT NULL, 
	PRIMARY KEY (id), 
	CONSTRAINT uq_receipt_message_kind UNIQUE (wa_message_id, kind)
);
CREATE TABLE service_status (
	name VARCHAR NOT NULL, 
	value JSON NOT NULL, 
	updated_at DATETIME NOT NULL, 
	PRIMARY KEY (name)
);
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
INSERT INTO conversation VALUES('p_b4b27856b289748e','FEEDBACK','{"habit_domain": "walking", "prompt_anchor": "after dinner", "motivational_frame": "to sleep better", "preferred_time": "00:01", "last_habit_prompt": "Walk around the block right after dinner tonight: ten minutes is plenty.", "last_prompt_sent_at": "2026-01-06T05:01:00.047405+00:00", "intensity": "normal", "intensity_poll_date": "2026-01-06", "intensity_poll_message": 16, "counters": {"prompts_sent": 1, "successes": 0, "misses": 0, "current_streak": 0, "best_streak": 0, "last_success_date": null, "last_miss_date": null}, "updated_at": "2026-01-06T04:57:48.238526+00:00"}','{}','',0,2,4,'2026-01-06 05:01:00.053512');
INSERT INTO conversation VALUES('p_89f1f1831e2460bc','INTAKE','{"intensity": "normal"}','{}','',0,1,3,'2026-01-06 04:57:52.300238');
INSERT INTO conversation VALUES('p_30e96e356f1975d2','INTAKE','{"intensity": "normal"}','{}','',0,1,3,'2026-01-06 04:57:55.011738');
INSERT INTO conversation VALUES('p_8d84fb3484048822','INTAKE','{"intensity": "normal"}','{}','',0,1,3,'2026-01-06 04:57:58.927073');
INSERT INTO conversation VALUES('p_b5d1cfba817b7efc','INTAKE','{"intensity": "normal"}','{}','',0,1,4,'2026-01-06 04:58:06.671329');
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
	receipts_expected BOOLEAN NOT NULL, 
	PRIMARY KEY (id), 
	FOREIGN KEY(participant_id) REFERENCES participant (id)
);
INSERT INTO message VALUES(1,'p_b4b27856b289748e','out','assistant','greeting','Walk around the block right after dinner tonight: ten minutes is plenty.','{}','dry-6b790550b24ad3d4','sent','2026-01-06 04:57:36.749860','2026-01-06 04:57:36.792559',0);
INSERT INTO message VALUES(2,'p_89f1f1831e2460bc','out','assistant','greeting','Walk around the block right after dinner tonight: ten minutes is plenty.','{}','dry-b133f9dfe08c3282','sent','2026-01-06 04:57:37.413099','2026-01-06 04:57:37.431115',0);
INSERT INTO message VALUES(3,'p_30e96e356f1975d2','out','assistant','greeting','Walk around the block right after dinner tonight: ten minutes is plenty.','{}','dry-5cf4d71bc9644a7d','sent','2026-01-06 04:57:38.962194','2026-01-06 04:57:38.988596',0);
INSERT INTO message VALUES(4,'p_8d84fb3484048822','out','assistant','greeting','Walk around the block right after dinner tonight: ten minutes is plenty.','{}','dry-8e182724ecb8f8ef','sent','2026-01-06 04:57:41.592471','2026-01-06 04:57:41.604156',0);
INSERT INTO message VALUES(5,'p_b5d1cfba817b7efc','out','assistant','greeting','Walk around the block right after dinner tonight: ten minutes is plenty.','{}','dry-7f796e1cb60b5aa6','sent','2026-01-06 04:57:44.617313','2026-01-06 04:57:44.636341',0);
INSERT INTO message VALUES(6,'p_b4b27856b289748e','in','user','text','I''d like to walk around the block after dinner, just after midnight works','{}','sim-a4a7a18a00da7349','answered','2026-01-06 04:57:47.375683',NULL,0);
INSERT INTO message VALUES(7,'p_b4b27856b289748e','out','assistant','text','Lovely, your plan is set. I''ll nudge you each day.','{}','dry-c13333def05e9c36','sent','2026-01-06 04:57:48.300183','2026-01-06 04:57:48.446947',0);
INSERT INTO message VALUES(8,'p_89f1f1831e2460bc','in','user','text','STOP','{}','sim-b7eabf0f87d03717','answered','2026-01-06 04:57:51.590455',NULL,0);
INSERT INTO message VALUES(9,'p_89f1f1831e2460bc','out','assistant','command','Okay, you''re unsubscribed: you won''t get any more daily nudges, reminders or check-ins from this study. If you change your mind, send START. Send HELP for information.','{}','dry-1b4cf7b8eef2fb1a','sent','2026-01-06 04:57:52.300238','2026-01-06 04:57:52.345545',0);
INSERT INTO message VALUES(10,'p_b5d1cfba817b7efc','in','user','text','STOP','{}','sim-092b7d312022c739','answered','2026-01-06 04:58:01.966069',NULL,0);
INSERT INTO message VALUES(11,'p_b5d1cfba817b7efc','out','assistant','command','Okay, you''re unsubscribed: you won''t get any more daily nudges, reminders or check-ins from this study. If you change your mind, send START. Send HELP for information.','{}','dry-d4fbd5757b161d77','sent','2026-01-06 04:58:02.458749','2026-01-06 04:58:02.500035',0);
INSERT INTO message VALUES(12,'p_b5d1cfba817b7efc','in','user','text','START','{}','sim-4718be0739984ac0','answered','2026-01-06 04:58:05.667324',NULL,0);
INSERT INTO message VALUES(13,'p_b5d1cfba817b7efc','out','assistant','command','Welcome back! Your daily nudges are switched on again.','{}','dry-cc19124a6ebd7b15','sent','2026-01-06 04:58:06.671329','2026-01-06 04:58:06.700309',0);
INSERT INTO message VALUES(14,'p_b4b27856b289748e','out','assistant','prompt','Walk around the block right after dinner tonight: ten minutes is plenty.','{}','dry-19e9a13b5683a7dc','sent','2026-01-06 05:01:00.053512','2026-01-06 05:01:00.065963',0);
INSERT INTO message VALUES(15,'p_b4b27856b289748e','out','assistant','poll','Did you do it?','{"options": ["Done", "Not this time"], "purpose": "done"}','dry-d9ac50123f5d3534','sent','2026-01-06 05:01:00.053512','2026-01-06 05:01:00.068834',0);
INSERT INTO message VALUES(16,'p_b4b27856b289748e','out','assistant','poll','How do these daily steps feel to you?','{"options": ["A bit lighter, please", "Just right", "A bit more, please"], "purpose": "intensity"}','dry-267b2753c9566dd4','sent','2026-01-06 05:01:00.053512','2026-01-06 05:01:00.071112',0);
CREATE TABLE transition (
	id INTEGER NOT NULL, 
	participant_id VARCHAR NOT NULL, 
	kind VARCHAR NOT NULL, 
	name VARCHAR NOT NULL, 
	from_value VARCHAR, 
	to_value VARCHAR NOT NULL, 
	reason TEXT NOT NULL, 
	actor VARCHAR, 
	created_at DATETIME NOT NULL, 
	PRIMARY KEY (id), 
	FOREIGN KEY(participant_id) REFERENCES participant (id)
);
INSERT INTO transition VALUES(1,'p_b4b27856b289748e','status','enrolled',NULL,'active','enrolled by a researcher','researcher','2026-01-06 04:57:33.522111');
INSERT INTO transition VALUES(2,'p_89f1f1831e2460bc','status','enrolled',NULL,'active','enrolled by a researcher','researcher','2026-01-06 04:57:36.616141');
INSERT INTO transition VALUES(3,'p_30e96e356f1975d2','status','enrolled',NULL,'active','enrolled by a researcher','researcher','2026-01-06 04:57:38.015188');
INSERT INTO transition VALUES(4,'p_8d84fb3484048822','status','enrolled',NULL,'active','enrolled by a researcher','researcher','2026-01-06 04:57:41.172851');
INSERT INTO transition VALUES(5,'p_b5d1cfba817b7efc','status','enrolled',NULL,'active','enrolled by a researcher','researcher','2026-01-06 04:57:44.130225');
INSERT INTO transition VALUES(6,'p_b4b27856b289748e','sub_state','intake_to_feedback','INTAKE','FEEDBACK','the plan is set','model','2026-01-06 04:57:48.300183');
INSERT INTO transition VALUES(7,'p_89f1f1831e2460bc','status','opted_out','active','paused','participant asked to stop: consent to messages withdrawn','participant','2026-01-06 04:57:52.300238');
INSERT INTO transition VALUES(8,'p_30e96e356f1975d2','status','paused_by_researcher','active','paused','on holiday','researcher','2026-01-06 04:57:55.011738');
INSERT INTO transition VALUES(9,'p_8d84fb3484048822','status','withdrawn_by_researcher','active','withdrawn','moved away','researcher','2026-01-06 04:57:58.927073');
INSERT INTO transition VALUES(10,'p_b5d1cfba817b7efc','status','opted_out','active','paused','participant asked to stop: consent to messages withdrawn','participant','2026-01-06 04:58:02.458749');
INSERT INTO transition VALUES(11,'p_b5d1cfba817b7efc','status','opted_in','paused','active','participant sent START','participant','2026-01-06 04:58:06.671329');
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
INSERT INTO schedule VALUES('s_d9902e49','p_b4b27856b289748e','fixed','00:01',NULL,NULL,0,1,'2026-01-06 04:57:48.300183','2026-01-06 04:57:48.300183');
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
INSERT INTO timer VALUES(1,'p_b4b27856b289748e','feedback_check_in','2026-01-06 05:12:48.300183','{}','cancelled','daily prompt sent','2026-01-06 04:57:48.300183','2026-01-06 05:01:00.053512');
INSERT INTO timer VALUES(2,'p_b4b27856b289748e','reminder','2026-01-06 10:01:00.047405','{"prompt_inbox_id": 12}','pending','daily prompt sent','2026-01-06 05:01:00.053512',NULL);
INSERT INTO timer VALUES(3,'p_b4b27856b289748e','feedback_check_in','2026-01-06 05:16:00.047405','{}','pending','daily prompt sent','2026-01-06 05:01:00.053512',NULL);
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
CREATE TABLE consent (
	id INTEGER NOT NULL, 
	participant_id VARCHAR NOT NULL, 
	event VARCHAR NOT NULL, 
	source VARCHAR NOT NULL, 
	actor VARCHAR NOT NULL, 
	words TEXT NOT NULL, 
	created_at DATETIME NOT NULL, 
	PRIMARY KEY (id), 
	FOREIGN KEY(participant_id) REFERENCES participant (id)
);
INSERT INTO consent VALUES(1,'p_b4b27856b289748e','enrolled','researcher','root','enrolled by a researcher','2026-01-06 04:57:33.522111');
INSERT INTO consent VALUES(2,'p_89f1f1831e2460bc','enrolled','researcher','root','enrolled by a researcher','2026-01-06 04:57:36.616141');
INSERT INTO consent VALUES(3,'p_30e96e356f1975d2','enrolled','researcher','root','enrolled by a researcher','2026-01-06 04:57:38.015188');
INSERT INTO consent VALUES(4,'p_8d84fb3484048822','enrolled','researcher','root','enrolled by a researcher','2026-01-06 04:57:41.172851');
INSERT INTO consent VALUES(5,'p_b5d1cfba817b7efc','enrolled','researcher','root','enrolled by a researcher','2026-01-06 04:57:44.130225');
INSERT INTO consent VALUES(6,'p_89f1f1831e2460bc','opted_out','participant','','STOP','2026-01-06 04:57:52.300238');
INSERT INTO consent VALUES(7,'p_30e96e356f1975d2','paused','researcher','root','on holiday','2026-01-06 04:57:55.011738');
INSERT INTO consent VALUES(8,'p_8d84fb3484048822','withdrawn','researcher','root','moved away','2026-01-06 04:57:58.927073');
INSERT INTO consent VALUES(9,'p_b5d1cfba817b7efc','opted_out','participant','','STOP','2026-01-06 04:58:02.458749');
INSERT INTO consent VALUES(10,'p_b5d1cfba817b7efc','opted_in','participant','','START','2026-01-06 04:58:06.671329');
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
INSERT INTO inbox VALUES(1,'enroll:p_b4b27856b289748e','p_b4b27856b289748e','enroll','{}',NULL,'done',0,'2026-01-06 04:57:33.522111','2026-01-06 04:57:33.522111','2026-01-06 04:57:36.749860',NULL);
INSERT INTO inbox VALUES(2,'enroll:p_89f1f1831e2460bc','p_89f1f1831e2460bc','enroll','{}',NULL,'done',0,'2026-01-06 04:57:36.616141','2026-01-06 04:57:36.616141','2026-01-06 04:57:37.413099',NULL);
INSERT INTO inbox VALUES(3,'enroll:p_30e96e356f1975d2','p_30e96e356f1975d2','enroll','{}',NULL,'done',0,'2026-01-06 04:57:38.015188','2026-01-06 04:57:38.015188','2026-01-06 04:57:38.962194',NULL);
INSERT INTO inbox VALUES(4,'enroll:p_8d84fb3484048822','p_8d84fb3484048822','enroll','{}',NULL,'done',0,'2026-01-06 04:57:41.172851','2026-01-06 04:57:41.172851','2026-01-06 04:57:41.592471',NULL);
INSERT INTO inbox VALUES(5,'enroll:p_b5d1cfba817b7efc','p_b5d1cfba817b7efc','enroll','{}',NULL,'done',0,'2026-01-06 04:57:44.130225','2026-01-06 04:57:44.130225','2026-01-06 04:57:44.617313',NULL);
INSERT INTO inbox VALUES(6,'wa:sim-a4a7a18a00da7349','p_b4b27856b289748e','message','{"wa_message_id": "sim-a4a7a18a00da7349"}',6,'done',0,'2026-01-06 04:57:47.375683','2026-01-06 04:57:47.375683','2026-01-06 04:57:48.300183',NULL);
INSERT INTO inbox VALUES(7,'wa:sim-b7eabf0f87d03717','p_89f1f1831e2460bc','message','{"wa_message_id": "sim-b7eabf0f87d03717"}',8,'done',0,'2026-01-06 04:57:51.590455','2026-01-06 04:57:51.590455','2026-01-06 04:57:52.300238',NULL);
INSERT INTO inbox VALUES(8,'sync:p_30e96e356f1975d2:22364039','p_30e96e356f1975d2','sync','{}',NULL,'done',0,'2026-01-06 04:57:55.011738','2026-01-06 04:57:55.011738','2026-01-06 04:57:55.861308',NULL);
INSERT INTO inbox VALUES(9,'sync:p_8d84fb3484048822:1bb48662','p_8d84fb3484048822','sync','{}',NULL,'done',0,'2026-01-06 04:57:58.927073','2026-01-06 04:57:58.927073','2026-01-06 04:57:59.426473',NULL);
INSERT INTO inbox VALUES(10,'wa:sim-092b7d312022c739','p_b5d1cfba817b7efc','message','{"wa_message_id": "sim-092b7d312022c739"}',10,'done',0,'2026-01-06 04:58:01.966069','2026-01-06 04:58:01.966069','2026-01-06 04:58:02.458749',NULL);
INSERT INTO inbox VALUES(11,'wa:sim-4718be0739984ac0','p_b5d1cfba817b7efc','message','{"wa_message_id": "sim-4718be0739984ac0"}',12,'done',0,'2026-01-06 04:58:05.667324','2026-01-06 04:58:05.667324','2026-01-06 04:58:06.671329',NULL);
INSERT INTO inbox VALUES(12,'prompt:p_b4b27856b289748e:s_d9902e49:2026-01-06','p_b4b27856b289748e','daily_prompt','{"schedule_id": "s_d9902e49", "local_date": "2026-01-06", "due_at": "2026-01-06T05:01:00+00:00"}',NULL,'done',0,'2026-01-06 05:01:00.031858','2026-01-06 05:01:00.031858','2026-01-06 05:01:00.053512',NULL);
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
INSERT INTO outbox VALUES(1,'reply:1','p_b4b27856b289748e',1,'sent',1,'2026-01-06 04:57:36.749860','2026-01-06 04:57:36.780448','2026-01-06 04:57:36.792559','dry-6b790550b24ad3d4',NULL,'2026-01-06 04:57:36.749860');
INSERT INTO outbox VALUES(2,'reply:2','p_89f1f1831e2460bc',2,'sent',1,'2026-01-06 04:57:37.413099','2026-01-06 04:57:37.429116','2026-01-06 04:57:37.431115','dry-b133f9dfe08c3282',NULL,'2026-01-06 04:57:37.413099');
INSERT INTO outbox VALUES(3,'reply:3','p_30e96e356f1975d2',3,'sent',1,'2026-01-06 04:57:38.962194','2026-01-06 04:57:38.987078','2026-01-06 04:57:38.988596','dry-5cf4d71bc9644a7d',NULL,'2026-01-06 04:57:38.962194');
INSERT INTO outbox VALUES(4,'reply:4','p_8d84fb3484048822',4,'sent',1,'2026-01-06 04:57:41.592471','2026-01-06 04:57:41.601516','2026-01-06 04:57:41.604156','dry-8e182724ecb8f8ef',NULL,'2026-01-06 04:57:41.592471');
INSERT INTO outbox VALUES(5,'reply:5','p_b5d1cfba817b7efc',5,'sent',1,'2026-01-06 04:57:44.617313','2026-01-06 04:57:44.635039','2026-01-06 04:57:44.636341','dry-7f796e1cb60b5aa6',NULL,'2026-01-06 04:57:44.617313');
INSERT INTO outbox VALUES(6,'reply:6','p_b4b27856b289748e',7,'sent',1,'2026-01-06 04:57:48.300183','2026-01-06 04:57:48.439372','2026-01-06 04:57:48.446947','dry-c13333def05e9c36',NULL,'2026-01-06 04:57:48.300183');
INSERT INTO outbox VALUES(7,'reply:7','p_89f1f1831e2460bc',9,'sent',1,'2026-01-06 04:57:52.300238','2026-01-06 04:57:52.343626','2026-01-06 04:57:52.345545','dry-1b4cf7b8eef2fb1a',NULL,'2026-01-06 04:57:52.300238');
INSERT INTO outbox VALUES(8,'reply:10','p_b5d1cfba817b7efc',11,'sent',1,'2026-01-06 04:58:02.458749','2026-01-06 04:58:02.467615','2026-01-06 04:58:02.500035','dry-d4fbd5757b161d77',NULL,'2026-01-06 04:58:02.458749');
INSERT INTO outbox VALUES(9,'reply:11','p_b5d1cfba817b7efc',13,'sent',1,'2026-01-06 04:58:06.671329','2026-01-06 04:58:06.696040','2026-01-06 04:58:06.700309','dry-cc19124a6ebd7b15',NULL,'2026-01-06 04:58:06.671329');
INSERT INTO outbox VALUES(10,'prompt-text:12','p_b4b27856b289748e',14,'sent',1,'2026-01-06 05:01:00.053512','2026-01-06 05:01:00.064981','2026-01-06 05:01:00.065963','dry-19e9a13b5683a7dc',NULL,'2026-01-06 05:01:00.053512');
INSERT INTO outbox VALUES(11,'prompt-poll:12','p_b4b27856b289748e',15,'sent',1,'2026-01-06 05:01:00.053512','2026-01-06 05:01:00.068015','2026-01-06 05:01:00.068834','dry-d9ac50123f5d3534',NULL,'2026-01-06 05:01:00.053512');
INSERT INTO outbox VALUES(12,'intensity-poll:12','p_b4b27856b289748e',16,'sent',1,'2026-01-06 05:01:00.053512','2026-01-06 05:01:00.070360','2026-01-06 05:01:00.071112','dry-267b2753c9566dd4',NULL,'2026-01-06 05:01:00.053512');
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
	vote_source VARCHAR, 
	replied_at DATETIME, 
	reminder_at DATETIME, 
	PRIMARY KEY (id), 
	FOREIGN KEY(participant_id) REFERENCES participant (id), 
	UNIQUE (inbox_id), 
	FOREIGN KEY(prompt_message_id) REFERENCES message (id), 
	FOREIGN KEY(poll_message_id) REFERENCES message (id)
);
INSERT INTO prompt_delivery VALUES(1,'p_b4b27856b289748e',12,'s_d9902e49','2026-01-06','Walk around the block right after dinner tonight: ten minutes is plenty.',14,15,'2026-01-06 05:01:00.047405',NULL,NULL,0,NULL,NULL,NULL);
CREATE TABLE flag (
	id INTEGER NOT NULL, 
	participant_id VARCHAR NOT NULL, 
	source VARCHAR NOT NULL, 
	severity VARCHAR NOT NULL, 
	"trigger" TEXT NOT NULL, 
	message_id INTEGER, 
	status VARCHAR NOT NULL, 
	resolved_at DATETIME, 
	resolved_by VARCHAR, 
	resolution_note TEXT NOT NULL, 
	alert_status VARCHAR NOT NULL, 
	alert_attempts INTEGER NOT NULL, 
	alerted_at DATETIME, 
	created_at DATETIME NOT NULL, 
	PRIMARY KEY (id), 
	FOREIGN KEY(participant_id) REFERENCES participant (id), 
	FOREIGN KEY(message_id) REFERENCES message (id)
);
CREATE TABLE apscheduler_jobs (
	id VARCHAR(191) NOT NULL, 
	next_run_time FLOAT, 
	job_state BLOB NOT NULL, 
	PRIMARY KEY (id)
);
INSERT INTO apscheduler_jobs VALUES('daily:p_b4b27856b289748e:s_d9902e49',1767762060.0,X'80059554020000000000007d94288c0776657273696f6e944b018c026964948c236461696c793a705f623462323738353662323839373438653a735f6439393032653439948c0466756e63948c2b70726f6d7074706970652e7363686564756c696e672e6a6f62733a6461696c795f70726f6d70745f647565948c0774726967676572948c1d70726f6d7074706970652e7363686564756c696e672e74726967676572948c124461696c7950726f6d7074547269676765729493942981947d942868014b018c046b696e64948c056669786564948c0a68616269745f74696d65948c0530303a3031948c0c77696e646f775f7374617274944e8c0a77696e646f775f656e64944e8c0c707265705f6d696e75746573944b008c0473656564948c0a735f6439393032653439948c047a6f6e65948c0f416d65726963612f546f726f6e746f9475628c086578656375746f72948c0764656661756c74948c046172677394298c066b7761726773947d94288c0e7061727469636970616e745f6964948c12705f62346232373835366232383937343865948c0b7363686564756c655f6964946814758c046e616d65948c106461696c795f70726f6d70745f647565948c126d6973666972655f67726163655f74696d65944d100e8c08636f616c6573636594888c0d6d61785f696e7374616e636573944b018c0d6e6578745f72756e5f74696d65948c086461746574696d65948c086461746574696d65949394430a07ea01070501000000009468258c0874696d657a6f6e6594939468258c0974696d6564656c74619493944b004b004b00879452948594529486945294752e');
INSERT INTO apscheduler_jobs VALUES('reminder:p_b4b27856b289748e',1767693660.0474050044,X'800595bd010000000000007d94288c0776657273696f6e944b018c026964948c1b72656d696e6465723a705f62346232373835366232383937343865948c0466756e63948c2470726f6d7074706970652e7363686564756c696e672e6a6f62733a74696d65725f647565948c0774726967676572948c1961707363686564756c65722e74726967676572732e64617465948c0b44617465547269676765729493942981947d942868014b018c0872756e5f64617465948c086461746574696d65948c086461746574696d65949394430a07ea01060a010000b92d94680d8c0874696d657a6f6e65949394680d8c0974696d6564656c74619493944b004b004b0087945294859452948694529475628c086578656375746f72948c0764656661756c74948c046172677394298c066b7761726773947d94288c0e7061727469636970616e745f6964948c12705f62346232373835366232383937343865948c0874696d65725f6964944b02758c046e616d65948c0974696d65725f647565948c126d6973666972655f67726163655f74696d65944d100e8c08636f616c6573636594888c0d6d61785f696e7374616e636573944b018c0d6e6578745f72756e5f74696d6594681a752e');
INSERT INTO apscheduler_jobs VALUES('feedback_check_in:p_b4b27856b289748e',1767676560.0474050045,X'800595c6010000000000007d94288c0776657273696f6e944b018c026964948c24666565646261636b5f636865636b5f696e3a705f62346232373835366232383937343865948c0466756e63948c2470726f6d7074706970652e7363686564756c696e672e6a6f62733a74696d65725f647565948c0774726967676572948c1961707363686564756c65722e74726967676572732e64617465948c0b44617465547269676765729493942981947d942868014b018c0872756e5f64617465948c086461746574696d65948c086461746574696d65949394430a07ea010605100000b92d94680d8c0874696d657a6f6e65949394680d8c0974696d6564656c74619493944b004b004b0087945294859452948694529475628c086578656375746f72948c0764656661756c74948c046172677394298c066b7761726773947d94288c0e7061727469636970616e745f6964948c12705f62346232373835366232383937343865948c0874696d65725f6964944b03758c046e616d65948c0974696d65725f647565948c126d6973666972655f67726163655f74696d65944d100e8c08636f616c6573636594888c0d6d61785f696e7374616e636573944b018c0d6e6578745f72756e5f74696d6594681a752e');
CREATE INDEX ix_participant_lid ON participant (lid);
CREATE UNIQUE INDEX ix_participant_phone ON participant (phone);
CREATE INDEX ix_receipt_wa_message_id ON receipt (wa_message_id);
CREATE INDEX ix_lid_mapping_phone ON lid_mapping (phone);
CREATE INDEX ix_message_wa_message_id ON message (wa_message_id);
CREATE INDEX ix_message_participant_id_id ON message (participant_id, id);
CREATE INDEX ix_transition_participant_id ON transition (participant_id);
CREATE INDEX ix_schedule_participant_active ON schedule (participant_id, active);
CREATE INDEX ix_timer_status_due ON timer (status, due_at);
CREATE INDEX ix_timer_participant_status ON timer (participant_id, status);
CREATE INDEX ix_tone_event_participant_id ON tone_event (participant_id);
CREATE INDEX ix_consent_participant_id ON consent (participant_id);
CREATE INDEX ix_inbox_participant_status ON inbox (participant_id, status, id);
CREATE INDEX ix_inbox_status_available ON inbox (status, available_at);
CREATE INDEX ix_outbox_participant_id ON outbox (participant_id, id);
CREATE INDEX ix_outbox_status_available ON outbox (status, available_at);
CREATE INDEX ix_prompt_delivery_poll_message_id ON prompt_delivery (poll_message_id);
CREATE INDEX ix_prompt_delivery_participant_id ON prompt_delivery (participant_id, id);
CREATE INDEX ix_flag_status_id ON flag (status, id);
CREATE INDEX ix_flag_participant_id ON flag (participant_id);
CREATE INDEX ix_apscheduler_jobs_next_run_time ON apscheduler_jobs (next_run_time);
COMMIT;
