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
INSERT INTO participant VALUES('p_4a211c5bd4fc0661','+14165550140',NULL,'Ana','America/Toronto','active',0,0,NULL,'','2026-01-06 04:57:32.757630','2026-01-06 04:57:32.757630',NULL,NULL);
INSERT INTO participant VALUES('p_34fde320c7dec697','+14165550141',NULL,'Ben','America/Toronto','paused',1,0,'participant','','2026-01-06 04:57:35.626297','2026-01-06 04:57:49.960165',NULL,NULL);
INSERT INTO participant VALUES('p_24dc974cab1f053f','+14165550142',NULL,'Cleo','America/Toronto','paused',0,1,'researcher','','2026-01-06 04:57:37.414655','2026-01-06 04:57:51.849594',NULL,NULL);
INSERT INTO participant VALUES('p_9531896b34a25c0a','+14165550143',NULL,'Dev','America/Toronto','withdrawn',0,0,NULL,'','2026-01-06 04:57:39.504110','2026-01-06 04:57:56.145399',NULL,NULL);
INSERT INTO participant VALUES('p_4f9ac300596fc50f','+14165550144',NULL,'Eli','America/Toronto','active',0,0,NULL,'','2026-01-06 04:57:42.631650','2026-01-06 04:58:04.804493',NULL,NULL);
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
INSERT INTO conversation VALUES('p_4a211c5bd4fc0661','FEEDBACK','{"habit_domain": "walking", "prompt_anchor": "after dinner", "motivational_frame": "to sleep better", "preferred_time": "00:01", "updated_at": "2026-01-06T04:57:46.963005+00:00", "last_habit_prompt": "Walk around the block right after dinner tonight: ten minutes is plenty.", "last_prompt_sent_at": "2026-01-06T05:01:00.045938+00:00", "last_prompt_vote": null, "intensity_poll_date": "2026-01-06", "counters": {"prompts_sent": 1, "successes": 0, "misses": 0, "current_streak": 0, "best_streak": 0, "last_success_date": null, "last_miss_date": null}, "intensity_poll_message": 16}','{}','',0,2,4,'2026-01-06 05:01:00.056010');
INSERT INTO conversation VALUES('p_34fde320c7dec697','INTAKE','{}','{}','',0,1,3,'2026-01-06 04:57:49.960165');
INSERT INTO conversation VALUES('p_24dc974cab1f053f','INTAKE','{}','{}','',0,1,3,'2026-01-06 04:57:51.849594');
INSERT INTO conversation VALUES('p_9531896b34a25c0a','INTAKE','{}','{}','',0,1,3,'2026-01-06 04:57:56.145399');
INSERT INTO conversation VALUES('p_4f9ac300596fc50f','INTAKE','{}','{}','',0,1,4,'2026-01-06 04:58:04.804493');
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
INSERT INTO message VALUES(1,'p_4a211c5bd4fc0661','out','assistant','greeting','Walk around the block right after dinner tonight: ten minutes is plenty.','{}','dry-6746c6d8afdf66e5','sent','2026-01-06 04:57:35.702936','2026-01-06 04:57:35.730273');
INSERT INTO message VALUES(2,'p_34fde320c7dec697','out','assistant','greeting','Walk around the block right after dinner tonight: ten minutes is plenty.','{}','dry-ad56f3c6484853f4','sent','2026-01-06 04:57:36.379941','2026-01-06 04:57:36.444271');
INSERT INTO message VALUES(3,'p_24dc974cab1f053f','out','assistant','greeting','Walk around the block right after dinner tonight: ten minutes is plenty.','{}','dry-66c28a252e7a22ca','sent','2026-01-06 04:57:39.228849','2026-01-06 04:57:39.544310');
INSERT INTO message VALUES(4,'p_9531896b34a25c0a','out','assistant','greeting','Walk around the block right after dinner tonight: ten minutes is plenty.','{}','dry-cd6bf013727184d4','sent','2026-01-06 04:57:41.106652','2026-01-06 04:57:41.130647');
INSERT INTO message VALUES(5,'p_4f9ac300596fc50f','out','assistant','greeting','Walk around the block right after dinner tonight: ten minutes is plenty.','{}','dry-d09190096f248288','sent','2026-01-06 04:57:43.615290','2026-01-06 04:57:43.628104');
INSERT INTO message VALUES(6,'p_4a211c5bd4fc0661','in','user','text','I''d like to walk around the block after dinner, just after midnight works','{}','sim-81918ab660ea4a6b','answered','2026-01-06 04:57:45.879425',NULL);
INSERT INTO message VALUES(7,'p_4a211c5bd4fc0661','out','assistant','text','Lovely, your plan is set. I''ll nudge you each day.','{}','dry-0f068666549b6ddb','sent','2026-01-06 04:57:47.011936','2026-01-06 04:57:47.066776');
INSERT INTO message VALUES(8,'p_34fde320c7dec697','in','user','text','STOP','{}','sim-6bb0c2971da54e05','answered','2026-01-06 04:57:48.766850',NULL);
INSERT INTO message VALUES(9,'p_34fde320c7dec697','out','assistant','command','Okay, you''re unsubscribed: you won''t get any more daily nudges, reminders or check-ins from this study. If you change your mind, send START. Send HELP for information.','{}','dry-d77403f6b2925636','sent','2026-01-06 04:57:49.960165','2026-01-06 04:57:49.982681');
INSERT INTO message VALUES(10,'p_4f9ac300596fc50f','in','user','text','STOP','{}','sim-c07c5dc82c2e4ae9','answered','2026-01-06 04:57:59.409629',NULL);
INSERT INTO message VALUES(11,'p_4f9ac300596fc50f','out','assistant','command','Okay, you''re unsubscribed: you won''t get any more daily nudges, reminders or check-ins from this study. If you change your mind, send START. Send HELP for information.','{}','dry-cdc88a66d42f46bc','sent','2026-01-06 04:58:00.237652','2026-01-06 04:58:00.304112');
INSERT INTO message VALUES(12,'p_4f9ac300596fc50f','in','user','text','START','{}','sim-7e4dfe7cab5a9711','answered','2026-01-06 04:58:03.925079',NULL);
INSERT INTO message VALUES(13,'p_4f9ac300596fc50f','out','assistant','command','Welcome back! Your daily nudges are switched on again.','{}','dry-ce6615581b1c9a28','sent','2026-01-06 04:58:04.804493','2026-01-06 04:58:04.845275');
INSERT INTO message VALUES(14,'p_4a211c5bd4fc0661','out','assistant','prompt','Walk around the block right after dinner tonight: ten minutes is plenty.','{}','dry-e96b454bb64393d1','sent','2026-01-06 05:01:00.056010','2026-01-06 05:01:00.069700');
INSERT INTO message VALUES(15,'p_4a211c5bd4fc0661','out','assistant','poll','Did you do it?','{"options": ["Done", "Not this time"], "purpose": "done"}','dry-9f3d7e1dca99c5d8','sent','2026-01-06 05:01:00.056010','2026-01-06 05:01:00.072225');
INSERT INTO message VALUES(16,'p_4a211c5bd4fc0661','out','assistant','poll','How do these daily steps feel to you?','{"options": ["A bit lighter, please", "Just right", "A bit more, please"], "purpose": "intensity"}','dry-44dd701950ba12ab','sent','2026-01-06 05:01:00.056010','2026-01-06 05:01:00.074578');
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
INSERT INTO transition VALUES(1,'p_4a211c5bd4fc0661','status','enrolled',NULL,'active','enrolled by a researcher','2026-01-06 04:57:32.757630');
INSERT INTO transition VALUES(2,'p_34fde320c7dec697','status','enrolled',NULL,'active','enrolled by a researcher','2026-01-06 04:57:35.626297');
INSERT INTO transition VALUES(3,'p_24dc974cab1f053f','status','enrolled',NULL,'active','enrolled by a researcher','2026-01-06 04:57:37.414655');
INSERT INTO transition VALUES(4,'p_9531896b34a25c0a','status','enrolled',NULL,'active','enrolled by a researcher','2026-01-06 04:57:39.504110');
INSERT INTO transition VALUES(5,'p_4f9ac300596fc50f','status','enrolled',NULL,'active','enrolled by a researcher','2026-01-06 04:57:42.631650');
INSERT INTO transition VALUES(6,'p_4a211c5bd4fc0661','sub_state','intake_to_feedback','INTAKE','FEEDBACK','the plan is set','2026-01-06 04:57:47.011936');
INSERT INTO transition VALUES(7,'p_34fde320c7dec697','status','opted_out','active','paused','participant asked to stop: consent to messages withdrawn','2026-01-06 04:57:49.960165');
INSERT INTO transition VALUES(8,'p_24dc974cab1f053f','status','paused_by_researcher','active','paused','on holiday','2026-01-06 04:57:51.849594');
INSERT INTO transition VALUES(9,'p_9531896b34a25c0a','status','withdrawn_by_researcher','active','withdrawn','moved away','2026-01-06 04:57:56.145399');
INSERT INTO transition VALUES(10,'p_4f9ac300596fc50f','status','opted_out','active','paused','participant asked to stop: consent to messages withdrawn','2026-01-06 04:58:00.237652');
INSERT INTO transition VALUES(11,'p_4f9ac300596fc50f','status','opted_in','paused','active','participant sent START','2026-01-06 04:58:04.804493');
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
INSERT INTO schedule VALUES('s_ff980de4','p_4a211c5bd4fc0661','fixed','00:01',NULL,NULL,0,1,'2026-01-06 04:57:47.011936','2026-01-06 04:57:47.011936');
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
INSERT INTO timer VALUES(1,'p_4a211c5bd4fc0661','feedback_check_in','2026-01-06 05:12:47.011829','{}','cancelled','daily prompt sent','2026-01-06 04:57:47.011936','2026-01-06 05:01:00.056010');
INSERT INTO timer VALUES(2,'p_4a211c5bd4fc0661','reminder','2026-01-06 10:01:00.045938','{"prompt_inbox_id": 12}','pending','daily prompt sent','2026-01-06 05:01:00.056010',NULL);
INSERT INTO timer VALUES(3,'p_4a211c5bd4fc0661','feedback_check_in','2026-01-06 05:16:00.045938','{}','pending','daily prompt sent','2026-01-06 05:01:00.056010',NULL);
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
INSERT INTO consent VALUES(1,'p_4a211c5bd4fc0661','enrolled','researcher','root','enrolled by a researcher','2026-01-06 04:57:32.757630');
INSERT INTO consent VALUES(2,'p_34fde320c7dec697','enrolled','researcher','root','enrolled by a researcher','2026-01-06 04:57:35.626297');
INSERT INTO consent VALUES(3,'p_24dc974cab1f053f','enrolled','researcher','root','enrolled by a researcher','2026-01-06 04:57:37.414655');
INSERT INTO consent VALUES(4,'p_9531896b34a25c0a','enrolled','researcher','root','enrolled by a researcher','2026-01-06 04:57:39.504110');
INSERT INTO consent VALUES(5,'p_4f9ac300596fc50f','enrolled','researcher','root','enrolled by a researcher','2026-01-06 04:57:42.631650');
INSERT INTO consent VALUES(6,'p_34fde320c7dec697','opted_out','participant','','STOP','2026-01-06 04:57:49.960165');
INSERT INTO consent VALUES(7,'p_24dc974cab1f053f','paused','researcher','root','on holiday','2026-01-06 04:57:51.849594');
INSERT INTO consent VALUES(8,'p_9531896b34a25c0a','withdrawn','researcher','root','moved away','2026-01-06 04:57:56.145399');
INSERT INTO consent VALUES(9,'p_4f9ac300596fc50f','opted_out','participant','','STOP','2026-01-06 04:58:00.237652');
INSERT INTO consent VALUES(10,'p_4f9ac300596fc50f','opted_in','participant','','START','2026-01-06 04:58:04.804493');
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
INSERT INTO inbox VALUES(1,'enroll:p_4a211c5bd4fc0661','p_4a211c5bd4fc0661','enroll','{}',NULL,'done',0,'2026-01-06 04:57:32.757630','2026-01-06 04:57:32.757630','2026-01-06 04:57:35.702936',NULL);
INSERT INTO inbox VALUES(2,'enroll:p_34fde320c7dec697','p_34fde320c7dec697','enroll','{}',NULL,'done',0,'2026-01-06 04:57:35.626297','2026-01-06 04:57:35.626297','2026-01-06 04:57:36.379941',NULL);
INSERT INTO inbox VALUES(3,'enroll:p_24dc974cab1f053f','p_24dc974cab1f053f','enroll','{}',NULL,'done',0,'2026-01-06 04:57:37.414655','2026-01-06 04:57:37.414655','2026-01-06 04:57:39.228849',NULL);
INSERT INTO inbox VALUES(4,'enroll:p_9531896b34a25c0a','p_9531896b34a25c0a','enroll','{}',NULL,'done',0,'2026-01-06 04:57:39.504110','2026-01-06 04:57:39.504110','2026-01-06 04:57:41.106652',NULL);
INSERT INTO inbox VALUES(5,'enroll:p_4f9ac300596fc50f','p_4f9ac300596fc50f','enroll','{}',NULL,'done',0,'2026-01-06 04:57:42.631650','2026-01-06 04:57:42.631650','2026-01-06 04:57:43.615290',NULL);
INSERT INTO inbox VALUES(6,'wa:sim-81918ab660ea4a6b','p_4a211c5bd4fc0661','message','{}',6,'done',0,'2026-01-06 04:57:45.879425','2026-01-06 04:57:45.879425','2026-01-06 04:57:47.011936',NULL);
INSERT INTO inbox VALUES(7,'wa:sim-6bb0c2971da54e05','p_34fde320c7dec697','message','{}',8,'done',0,'2026-01-06 04:57:48.766850','2026-01-06 04:57:48.766850','2026-01-06 04:57:49.960165',NULL);
INSERT INTO inbox VALUES(8,'sync:p_24dc974cab1f053f:5ec1a383','p_24dc974cab1f053f','sync','{}',NULL,'done',0,'2026-01-06 04:57:51.849594','2026-01-06 04:57:51.849594','2026-01-06 04:57:52.983611',NULL);
INSERT INTO inbox VALUES(9,'sync:p_9531896b34a25c0a:b047c73d','p_9531896b34a25c0a','sync','{}',NULL,'done',0,'2026-01-06 04:57:56.145399','2026-01-06 04:57:56.145399','2026-01-06 04:57:56.567807',NULL);
INSERT INTO inbox VALUES(10,'wa:sim-c07c5dc82c2e4ae9','p_4f9ac300596fc50f','message','{}',10,'done',0,'2026-01-06 04:57:59.409629','2026-01-06 04:57:59.409629','2026-01-06 04:58:00.237652',NULL);
INSERT INTO inbox VALUES(11,'wa:sim-7e4dfe7cab5a9711','p_4f9ac300596fc50f','message','{}',12,'done',0,'2026-01-06 04:58:03.925079','2026-01-06 04:58:03.925079','2026-01-06 04:58:04.804493',NULL);
INSERT INTO inbox VALUES(12,'prompt:p_4a211c5bd4fc0661:s_ff980de4:2026-01-06','p_4a211c5bd4fc0661','daily_prompt','{"schedule_id": "s_ff980de4", "local_date": "2026-01-06", "due_at": "2026-01-06T05:01:00+00:00"}',NULL,'done',0,'2026-01-06 05:01:00.006496','2026-01-06 05:01:00.006496','2026-01-06 05:01:00.056010',NULL);
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
INSERT INTO outbox VALUES(1,'reply:1','p_4a211c5bd4fc0661',1,'sent',1,'2026-01-06 04:57:35.702936','2026-01-06 04:57:35.726381','2026-01-06 04:57:35.730273','dry-6746c6d8afdf66e5',NULL,'2026-01-06 04:57:35.702936');
INSERT INTO outbox VALUES(2,'reply:2','p_34fde320c7dec697',2,'sent',1,'2026-01-06 04:57:36.379941','2026-01-06 04:57:36.442400','2026-01-06 04:57:36.444271','dry-ad56f3c6484853f4',NULL,'2026-01-06 04:57:36.379941');
INSERT INTO outbox VALUES(3,'reply:3','p_24dc974cab1f053f',3,'sent',1,'2026-01-06 04:57:39.228849','2026-01-06 04:57:39.542444','2026-01-06 04:57:39.544310','dry-66c28a252e7a22ca',NULL,'2026-01-06 04:57:39.228849');
INSERT INTO outbox VALUES(4,'reply:4','p_9531896b34a25c0a',4,'sent',1,'2026-01-06 04:57:41.106652','2026-01-06 04:57:41.118267','2026-01-06 04:57:41.130647','dry-cd6bf013727184d4',NULL,'2026-01-06 04:57:41.106652');
INSERT INTO outbox VALUES(5,'reply:5','p_4f9ac300596fc50f',5,'sent',1,'2026-01-06 04:57:43.615290','2026-01-06 04:57:43.626439','2026-01-06 04:57:43.628104','dry-d09190096f248288',NULL,'2026-01-06 04:57:43.615290');
INSERT INTO outbox VALUES(6,'reply:6','p_4a211c5bd4fc0661',7,'sent',1,'2026-01-06 04:57:47.011936','2026-01-06 04:57:47.034127','2026-01-06 04:57:47.066776','dry-0f068666549b6ddb',NULL,'2026-01-06 04:57:47.011936');
INSERT INTO outbox VALUES(7,'reply:7','p_34fde320c7dec697',9,'sent',1,'2026-01-06 04:57:49.960165','2026-01-06 04:57:49.972371','2026-01-06 04:57:49.982681','dry-d77403f6b2925636',NULL,'2026-01-06 04:57:49.960165');
INSERT INTO outbox VALUES(8,'reply:10','p_4f9ac300596fc50f',11,'sent',1,'2026-01-06 04:58:00.237652','2026-01-06 04:58:00.283713','2026-01-06 04:58:00.304112','dry-cdc88a66d42f46bc',NULL,'2026-01-06 04:58:00.237652');
INSERT INTO outbox VALUES(9,'reply:11','p_4f9ac300596fc50f',13,'sent',1,'2026-01-06 04:58:04.804493','2026-01-06 04:58:04.842800','2026-01-06 04:58:04.845275','dry-ce6615581b1c9a28',NULL,'2026-01-06 04:58:04.804493');
INSERT INTO outbox VALUES(10,'prompt-text:12','p_4a211c5bd4fc0661',14,'sent',1,'2026-01-06 05:01:00.056010','2026-01-06 05:01:00.067731','2026-01-06 05:01:00.069700','dry-e96b454bb64393d1',NULL,'2026-01-06 05:01:00.056010');
INSERT INTO outbox VALUES(11,'prompt-poll:12','p_4a211c5bd4fc0661',15,'sent',1,'2026-01-06 05:01:00.056010','2026-01-06 05:01:00.071361','2026-01-06 05:01:00.072225','dry-9f3d7e1dca99c5d8',NULL,'2026-01-06 05:01:00.056010');
INSERT INTO outbox VALUES(12,'intensity-poll:12','p_4a211c5bd4fc0661',16,'sent',1,'2026-01-06 05:01:00.056010','2026-01-06 05:01:00.073747','2026-01-06 05:01:00.074578','dry-44dd701950ba12ab',NULL,'2026-01-06 05:01:00.056010');
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
INSERT INTO prompt_delivery VALUES(1,'p_4a211c5bd4fc0661',12,'s_ff980de4','2026-01-06','Walk around the block right after dinner tonight: ten minutes is plenty.',14,15,'2026-01-06 05:01:00.045938',NULL,NULL,0,NULL,NULL);
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
INSERT INTO apscheduler_jobs VALUES('daily:p_4a211c5bd4fc0661:s_ff980de4',1767762060.0,X'80059554020000000000007d94288c0776657273696f6e944b018c026964948c236461696c793a705f346132313163356264346663303636313a735f6666393830646534948c0466756e63948c2b70726f6d7074706970652e7363686564756c696e672e6a6f62733a6461696c795f70726f6d70745f647565948c0774726967676572948c1d70726f6d7074706970652e7363686564756c696e672e74726967676572948c124461696c7950726f6d7074547269676765729493942981947d942868014b018c046b696e64948c056669786564948c0a68616269745f74696d65948c0530303a3031948c0c77696e646f775f7374617274944e8c0a77696e646f775f656e64944e8c0c707265705f6d696e75746573944b008c0473656564948c0a735f6666393830646534948c047a6f6e65948c0f416d65726963612f546f726f6e746f9475628c086578656375746f72948c0764656661756c74948c046172677394298c066b7761726773947d94288c0e7061727469636970616e745f6964948c12705f34613231316335626434666330363631948c0b7363686564756c655f6964946814758c046e616d65948c106461696c795f70726f6d70745f647565948c126d6973666972655f67726163655f74696d65944d100e8c08636f616c6573636594888c0d6d61785f696e7374616e636573944b018c0d6e6578745f72756e5f74696d65948c086461746574696d65948c086461746574696d65949394430a07ea01070501000000009468258c0874696d657a6f6e6594939468258c0974696d6564656c74619493944b004b004b00879452948594529486945294752e');
INSERT INTO apscheduler_jobs VALUES('reminder:p_4a211c5bd4fc0661',1767693660.0459380149,X'800595bd010000000000007d94288c0776657273696f6e944b018c026964948c1b72656d696e6465723a705f34613231316335626434666330363631948c0466756e63948c2470726f6d7074706970652e7363686564756c696e672e6a6f62733a74696d65725f647565948c0774726967676572948c1961707363686564756c65722e74726967676572732e64617465948c0b44617465547269676765729493942981947d942868014b018c0872756e5f64617465948c086461746574696d65948c086461746574696d65949394430a07ea01060a010000b37294680d8c0874696d657a6f6e65949394680d8c0974696d6564656c74619493944b004b004b0087945294859452948694529475628c086578656375746f72948c0764656661756c74948c046172677394298c066b7761726773947d94288c0e7061727469636970616e745f6964948c12705f34613231316335626434666330363631948c0874696d65725f6964944b02758c046e616d65948c0974696d65725f647565948c126d6973666972655f67726163655f74696d65944d100e8c08636f616c6573636594888c0d6d61785f696e7374616e636573944b018c0d6e6578745f72756e5f74696d6594681a752e');
INSERT INTO apscheduler_jobs VALUES('feedback_check_in:p_4a211c5bd4fc0661',1767676560.045938015,X'800595c6010000000000007d94288c0776657273696f6e944b018c026964948c24666565646261636b5f636865636b5f696e3a705f34613231316335626434666330363631948c0466756e63948c2470726f6d7074706970652e7363686564756c696e672e6a6f62733a74696d65725f647565948c0774726967676572948c1961707363686564756c65722e74726967676572732e64617465948c0b44617465547269676765729493942981947d942868014b018c0872756e5f64617465948c086461746574696d65948c086461746574696d65949394430a07ea010605100000b37294680d8c0874696d657a6f6e65949394680d8c0974696d6564656c74619493944b004b004b0087945294859452948694529475628c086578656375746f72948c0764656661756c74948c046172677394298c066b7761726773947d94288c0e7061727469636970616e745f6964948c12705f34613231316335626434666330363631948c0874696d65725f6964944b03758c046e616d65948c0974696d65725f647565948c126d6973666972655f67726163655f74696d65944d100e8c08636f616c6573636594888c0d6d61785f696e7374616e636573944b018c0d6e6578745f72756e5f74696d6594681a752e');
CREATE INDEX ix_participant_lid ON participant (lid);
CREATE UNIQUE INDEX ix_participant_phone ON participant (phone);
CREATE INDEX ix_lid_mapping_phone ON lid_mapping (phone);
CREATE INDEX ix_message_wa_message_id ON message (wa_message_id);
CREATE INDEX ix_message_participant_id_id ON message (participant_id, id);
CREATE INDEX ix_transition_participant_id ON transition (participant_id);
CREATE INDEX ix_schedule_participant_active ON schedule (participant_id, active);
CREATE INDEX ix_timer_status_due ON timer (status, due_at);
CREATE INDEX ix_timer_participant_status ON timer (participant_id, status);
CREATE INDEX ix_tone_event_participant_id ON tone_event (participant_id);
CREATE INDEX ix_consent_participant_id ON consent (participant_id);
CREATE INDEX ix_inbox_status_available ON inbox (status, available_at);
CREATE INDEX ix_inbox_participant_status ON inbox (participant_id, status, id);
CREATE INDEX ix_outbox_participant_id ON outbox (participant_id, id);
CREATE INDEX ix_outbox_status_available ON outbox (status, available_at);
CREATE INDEX ix_prompt_delivery_participant_id ON prompt_delivery (participant_id, id);
CREATE INDEX ix_prompt_delivery_poll_message_id ON prompt_delivery (poll_message_id);
CREATE INDEX ix_flag_participant_id ON flag (participant_id);
CREATE INDEX ix_flag_status_id ON flag (status, id);
CREATE INDEX ix_apscheduler_jobs_next_run_time ON apscheduler_jobs (next_run_time);
COMMIT;
