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
INSERT INTO participant VALUES('p_4f0d5fcf55ffecfc','+14165550140',NULL,'Ana','America/Toronto','active',0,0,NULL,'','2026-01-06 04:57:31.856309','2026-01-06 04:57:31.856309',NULL,NULL);
INSERT INTO participant VALUES('p_c89371830001bb0c','+14165550141',NULL,'Ben','America/Toronto','paused',1,0,'participant','','2026-01-06 04:57:33.726164','2026-01-06 04:57:46.418247',NULL,NULL);
INSERT INTO participant VALUES('p_0fec901c52f85dff','+14165550142',NULL,'Cleo','America/Toronto','paused',0,1,'researcher','','2026-01-06 04:57:35.119612','2026-01-06 04:57:48.764525',NULL,NULL);
INSERT INTO participant VALUES('p_231d4094f152cdb9','+14165550143',NULL,'Dev','America/Toronto','withdrawn',0,0,NULL,'','2026-01-06 04:57:37.430313','2026-01-06 04:57:51.808606',NULL,NULL);
INSERT INTO participant VALUES('p_2a2758adb86c76a7','+14165550144',NULL,'Eli','America/Toronto','active',0,0,NULL,'','2026-01-06 04:57:38.861330','2026-01-06 04:57:58.442393',NULL,NULL);
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
INSERT INTO conversation VALUES('p_4f0d5fcf55ffecfc','FEEDBACK','{"habit_domain": "walking", "prompt_anchor": "after dinner", "motivational_frame": "to sleep better", "preferred_time": "00:01", "updated_at": "2026-01-06T04:57:43.113666+00:00", "last_habit_prompt": "Walk around the block right after dinner tonight: ten minutes is plenty.", "last_prompt_sent_at": "2026-01-06T05:01:00.068803+00:00", "last_prompt_vote": null, "intensity_poll_date": "2026-01-06", "counters": {"prompts_sent": 1, "successes": 0, "misses": 0, "current_streak": 0, "best_streak": 0, "last_success_date": null, "last_miss_date": null}, "intensity_poll_message": 16}','{}','',0,2,4,'2026-01-06 05:01:00.195050');
INSERT INTO conversation VALUES('p_c89371830001bb0c','INTAKE','{}','{}','',0,1,3,'2026-01-06 04:57:46.418247');
INSERT INTO conversation VALUES('p_0fec901c52f85dff','INTAKE','{}','{}','',0,1,3,'2026-01-06 04:57:48.764525');
INSERT INTO conversation VALUES('p_231d4094f152cdb9','INTAKE','{}','{}','',0,1,3,'2026-01-06 04:57:51.808606');
INSERT INTO conversation VALUES('p_2a2758adb86c76a7','INTAKE','{}','{}','',0,1,4,'2026-01-06 04:57:58.442393');
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
INSERT INTO message VALUES(1,'p_4f0d5fcf55ffecfc','out','assistant','greeting','Walk around the block right after dinner tonight: ten minutes is plenty.','{}','dry-c4b2bea747e666f0','sent','2026-01-06 04:57:34.025712','2026-01-06 04:57:34.083056',0);
INSERT INTO message VALUES(2,'p_c89371830001bb0c','out','assistant','greeting','Walk around the block right after dinner tonight: ten minutes is plenty.','{}','dry-45c57dafa6994efe','sent','2026-01-06 04:57:34.332037','2026-01-06 04:57:34.344106',0);
INSERT INTO message VALUES(3,'p_0fec901c52f85dff','out','assistant','greeting','Walk around the block right after dinner tonight: ten minutes is plenty.','{}','dry-18df0ac5ab8affdf','sent','2026-01-06 04:57:36.474072','2026-01-06 04:57:36.484008',0);
INSERT INTO message VALUES(4,'p_231d4094f152cdb9','out','assistant','greeting','Walk around the block right after dinner tonight: ten minutes is plenty.','{}','dry-17d52e1723ed0267','sent','2026-01-06 04:57:37.964801','2026-01-06 04:57:37.991963',0);
INSERT INTO message VALUES(5,'p_2a2758adb86c76a7','out','assistant','greeting','Walk around the block right after dinner tonight: ten minutes is plenty.','{}','dry-85f36dd6f93d8c75','sent','2026-01-06 04:57:39.571225','2026-01-06 04:57:39.579703',0);
INSERT INTO message VALUES(6,'p_4f0d5fcf55ffecfc','in','user','text','I''d like to walk around the block after dinner, just after midnight works','{}','sim-eeffd2017c5bcae8','answered','2026-01-06 04:57:42.259247',NULL,0);
INSERT INTO message VALUES(7,'p_4f0d5fcf55ffecfc','out','assistant','text','Lovely, your plan is set. I''ll nudge you each day.','{}','dry-fd40fc4780219c05','sent','2026-01-06 04:57:43.171967','2026-01-06 04:57:43.241855',0);
INSERT INTO message VALUES(8,'p_c89371830001bb0c','in','user','text','STOP','{}','sim-ffa339a45a5b45d9','answered','2026-01-06 04:57:45.743700',NULL,0);
INSERT INTO message VALUES(9,'p_c89371830001bb0c','out','assistant','command','Okay, you''re unsubscribed: you won''t get any more daily nudges, reminders or check-ins from this study. If you change your mind, send START. Send HELP for information.','{}','dry-466fc7302b669a3e','sent','2026-01-06 04:57:46.418247','2026-01-06 04:57:46.656017',0);
INSERT INTO message VALUES(10,'p_2a2758adb86c76a7','in','user','text','STOP','{}','sim-a30d282a89668358','answered','2026-01-06 04:57:54.761346',NULL,0);
INSERT INTO message VALUES(11,'p_2a2758adb86c76a7','out','assistant','command','Okay, you''re unsubscribed: you won''t get any more daily nudges, reminders or check-ins from this study. If you change your mind, send START. Send HELP for information.','{}','dry-9dd6567ec9fada60','sent','2026-01-06 04:57:55.416063','2026-01-06 04:57:55.455952',0);
INSERT INTO message VALUES(12,'p_2a2758adb86c76a7','in','user','text','START','{}','sim-2a7354d403bbfdd9','answered','2026-01-06 04:57:57.833852',NULL,0);
INSERT INTO message VALUES(13,'p_2a2758adb86c76a7','out','assistant','command','Welcome back! Your daily nudges are switched on again.','{}','dry-311130fa5b1abaed','sent','2026-01-06 04:57:58.442393','2026-01-06 04:57:58.449455',0);
INSERT INTO message VALUES(14,'p_4f0d5fcf55ffecfc','out','assistant','prompt','Walk around the block right after dinner tonight: ten minutes is plenty.','{}','dry-11fb93a955b34e59','sent','2026-01-06 05:01:00.195050','2026-01-06 05:01:01.061774',0);
INSERT INTO message VALUES(15,'p_4f0d5fcf55ffecfc','out','assistant','poll','Did you do it?','{"options": ["Done", "Not this time"], "purpose": "done"}','dry-04ad3b17149d6696','sent','2026-01-06 05:01:00.195050','2026-01-06 05:01:01.125868',0);
INSERT INTO message VALUES(16,'p_4f0d5fcf55ffecfc','out','assistant','poll','How do these daily steps feel to you?','{"options": ["A bit lighter, please", "Just right", "A bit more, please"], "purpose": "intensity"}','dry-00163d7d92824425','sent','2026-01-06 05:01:00.195050','2026-01-06 05:01:01.137753',0);
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
INSERT INTO transition VALUES(1,'p_4f0d5fcf55ffecfc','status','enrolled',NULL,'active','enrolled by a researcher','2026-01-06 04:57:31.856309');
INSERT INTO transition VALUES(2,'p_c89371830001bb0c','status','enrolled',NULL,'active','enrolled by a researcher','2026-01-06 04:57:33.726164');
INSERT INTO transition VALUES(3,'p_0fec901c52f85dff','status','enrolled',NULL,'active','enrolled by a researcher','2026-01-06 04:57:35.119612');
INSERT INTO transition VALUES(4,'p_231d4094f152cdb9','status','enrolled',NULL,'active','enrolled by a researcher','2026-01-06 04:57:37.430313');
INSERT INTO transition VALUES(5,'p_2a2758adb86c76a7','status','enrolled',NULL,'active','enrolled by a researcher','2026-01-06 04:57:38.861330');
INSERT INTO transition VALUES(6,'p_4f0d5fcf55ffecfc','sub_state','intake_to_feedback','INTAKE','FEEDBACK','the plan is set','2026-01-06 04:57:43.171967');
INSERT INTO transition VALUES(7,'p_c89371830001bb0c','status','opted_out','active','paused','participant asked to stop: consent to messages withdrawn','2026-01-06 04:57:46.418247');
INSERT INTO transition VALUES(8,'p_0fec901c52f85dff','status','paused_by_researcher','active','paused','on holiday','2026-01-06 04:57:48.764525');
INSERT INTO transition VALUES(9,'p_231d4094f152cdb9','status','withdrawn_by_researcher','active','withdrawn','moved away','2026-01-06 04:57:51.808606');
INSERT INTO transition VALUES(10,'p_2a2758adb86c76a7','status','opted_out','active','paused','participant asked to stop: consent to messages withdrawn','2026-01-06 04:57:55.416063');
INSERT INTO transition VALUES(11,'p_2a2758adb86c76a7','status','opted_in','paused','active','participant sent START','2026-01-06 04:57:58.442393');
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
INSERT INTO schedule VALUES('s_f17cabc0','p_4f0d5fcf55ffecfc','fixed','00:01',NULL,NULL,0,1,'2026-01-06 04:57:43.171967','2026-01-06 04:57:43.171967');
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
INSERT INTO timer VALUES(1,'p_4f0d5fcf55ffecfc','feedback_check_in','2026-01-06 05:12:43.171882','{}','cancelled','daily prompt sent','2026-01-06 04:57:43.171967','2026-01-06 05:01:00.195050');
INSERT INTO timer VALUES(2,'p_4f0d5fcf55ffecfc','reminder','2026-01-06 10:01:00.068803','{"prompt_inbox_id": 12}','pending','daily prompt sent','2026-01-06 05:01:00.195050',NULL);
INSERT INTO timer VALUES(3,'p_4f0d5fcf55ffecfc','feedback_check_in','2026-01-06 05:16:00.068803','{}','pending','daily prompt sent','2026-01-06 05:01:00.195050',NULL);
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
INSERT INTO consent VALUES(1,'p_4f0d5fcf55ffecfc','enrolled','researcher','root','enrolled by a researcher','2026-01-06 04:57:31.856309');
INSERT INTO consent VALUES(2,'p_c89371830001bb0c','enrolled','researcher','root','enrolled by a researcher','2026-01-06 04:57:33.726164');
INSERT INTO consent VALUES(3,'p_0fec901c52f85dff','enrolled','researcher','root','enrolled by a researcher','2026-01-06 04:57:35.119612');
INSERT INTO consent VALUES(4,'p_231d4094f152cdb9','enrolled','researcher','root','enrolled by a researcher','2026-01-06 04:57:37.430313');
INSERT INTO consent VALUES(5,'p_2a2758adb86c76a7','enrolled','researcher','root','enrolled by a researcher','2026-01-06 04:57:38.861330');
INSERT INTO consent VALUES(6,'p_c89371830001bb0c','opted_out','participant','','STOP','2026-01-06 04:57:46.418247');
INSERT INTO consent VALUES(7,'p_0fec901c52f85dff','paused','researcher','root','on holiday','2026-01-06 04:57:48.764525');
INSERT INTO consent VALUES(8,'p_231d4094f152cdb9','withdrawn','researcher','root','moved away','2026-01-06 04:57:51.808606');
INSERT INTO consent VALUES(9,'p_2a2758adb86c76a7','opted_out','participant','','STOP','2026-01-06 04:57:55.416063');
INSERT INTO consent VALUES(10,'p_2a2758adb86c76a7','opted_in','participant','','START','2026-01-06 04:57:58.442393');
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
INSERT INTO inbox VALUES(1,'enroll:p_4f0d5fcf55ffecfc','p_4f0d5fcf55ffecfc','enroll','{}',NULL,'done',0,'2026-01-06 04:57:31.856309','2026-01-06 04:57:31.856309','2026-01-06 04:57:34.025712',NULL);
INSERT INTO inbox VALUES(2,'enroll:p_c89371830001bb0c','p_c89371830001bb0c','enroll','{}',NULL,'done',0,'2026-01-06 04:57:33.726164','2026-01-06 04:57:33.726164','2026-01-06 04:57:34.332037',NULL);
INSERT INTO inbox VALUES(3,'enroll:p_0fec901c52f85dff','p_0fec901c52f85dff','enroll','{}',NULL,'done',0,'2026-01-06 04:57:35.119612','2026-01-06 04:57:35.119612','2026-01-06 04:57:36.474072',NULL);
INSERT INTO inbox VALUES(4,'enroll:p_231d4094f152cdb9','p_231d4094f152cdb9','enroll','{}',NULL,'done',0,'2026-01-06 04:57:37.430313','2026-01-06 04:57:37.430313','2026-01-06 04:57:37.964801',NULL);
INSERT INTO inbox VALUES(5,'enroll:p_2a2758adb86c76a7','p_2a2758adb86c76a7','enroll','{}',NULL,'done',0,'2026-01-06 04:57:38.861330','2026-01-06 04:57:38.861330','2026-01-06 04:57:39.571225',NULL);
INSERT INTO inbox VALUES(6,'wa:sim-eeffd2017c5bcae8','p_4f0d5fcf55ffecfc','message','{"wa_message_id": "sim-eeffd2017c5bcae8"}',6,'done',0,'2026-01-06 04:57:42.259247','2026-01-06 04:57:42.259247','2026-01-06 04:57:43.171967',NULL);
INSERT INTO inbox VALUES(7,'wa:sim-ffa339a45a5b45d9','p_c89371830001bb0c','message','{"wa_message_id": "sim-ffa339a45a5b45d9"}',8,'done',0,'2026-01-06 04:57:45.743700','2026-01-06 04:57:45.743700','2026-01-06 04:57:46.418247',NULL);
INSERT INTO inbox VALUES(8,'sync:p_0fec901c52f85dff:6bb7a9c8','p_0fec901c52f85dff','sync','{}',NULL,'done',0,'2026-01-06 04:57:48.764525','2026-01-06 04:57:48.764525','2026-01-06 04:57:49.093495',NULL);
INSERT INTO inbox VALUES(9,'sync:p_231d4094f152cdb9:d62d4144','p_231d4094f152cdb9','sync','{}',NULL,'done',0,'2026-01-06 04:57:51.808606','2026-01-06 04:57:51.808606','2026-01-06 04:57:52.309057',NULL);
INSERT INTO inbox VALUES(10,'wa:sim-a30d282a89668358','p_2a2758adb86c76a7','message','{"wa_message_id": "sim-a30d282a89668358"}',10,'done',0,'2026-01-06 04:57:54.761346','2026-01-06 04:57:54.761346','2026-01-06 04:57:55.416063',NULL);
INSERT INTO inbox VALUES(11,'wa:sim-2a7354d403bbfdd9','p_2a2758adb86c76a7','message','{"wa_message_id": "sim-2a7354d403bbfdd9"}',12,'done',0,'2026-01-06 04:57:57.833852','2026-01-06 04:57:57.833852','2026-01-06 04:57:58.442393',NULL);
INSERT INTO inbox VALUES(12,'prompt:p_4f0d5fcf55ffecfc:s_f17cabc0:2026-01-06','p_4f0d5fcf55ffecfc','daily_prompt','{"schedule_id": "s_f17cabc0", "local_date": "2026-01-06", "due_at": "2026-01-06T05:01:00+00:00"}',NULL,'done',0,'2026-01-06 05:01:00.019339','2026-01-06 05:01:00.019339','2026-01-06 05:01:00.195050',NULL);
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
INSERT INTO outbox VALUES(1,'reply:1','p_4f0d5fcf55ffecfc',1,'sent',1,'2026-01-06 04:57:34.025712','2026-01-06 04:57:34.078923','2026-01-06 04:57:34.083056','dry-c4b2bea747e666f0',NULL,'2026-01-06 04:57:34.025712');
INSERT INTO outbox VALUES(2,'reply:2','p_c89371830001bb0c',2,'sent',1,'2026-01-06 04:57:34.332037','2026-01-06 04:57:34.342810','2026-01-06 04:57:34.344106','dry-45c57dafa6994efe',NULL,'2026-01-06 04:57:34.332037');
INSERT INTO outbox VALUES(3,'reply:3','p_0fec901c52f85dff',3,'sent',1,'2026-01-06 04:57:36.474072','2026-01-06 04:57:36.482844','2026-01-06 04:57:36.484008','dry-18df0ac5ab8affdf',NULL,'2026-01-06 04:57:36.474072');
INSERT INTO outbox VALUES(4,'reply:4','p_231d4094f152cdb9',4,'sent',1,'2026-01-06 04:57:37.964801','2026-01-06 04:57:37.990769','2026-01-06 04:57:37.991963','dry-17d52e1723ed0267',NULL,'2026-01-06 04:57:37.964801');
INSERT INTO outbox VALUES(5,'reply:5','p_2a2758adb86c76a7',5,'sent',1,'2026-01-06 04:57:39.571225','2026-01-06 04:57:39.578735','2026-01-06 04:57:39.579703','dry-85f36dd6f93d8c75',NULL,'2026-01-06 04:57:39.571225');
INSERT INTO outbox VALUES(6,'reply:6','p_4f0d5fcf55ffecfc',7,'sent',1,'2026-01-06 04:57:43.171967','2026-01-06 04:57:43.240882','2026-01-06 04:57:43.241855','dry-fd40fc4780219c05',NULL,'2026-01-06 04:57:43.171967');
INSERT INTO outbox VALUES(7,'reply:7','p_c89371830001bb0c',9,'sent',1,'2026-01-06 04:57:46.418247','2026-01-06 04:57:46.654760','2026-01-06 04:57:46.656017','dry-466fc7302b669a3e',NULL,'2026-01-06 04:57:46.418247');
INSERT INTO outbox VALUES(8,'reply:10','p_2a2758adb86c76a7',11,'sent',1,'2026-01-06 04:57:55.416063','2026-01-06 04:57:55.450506','2026-01-06 04:57:55.455952','dry-9dd6567ec9fada60',NULL,'2026-01-06 04:57:55.416063');
INSERT INTO outbox VALUES(9,'reply:11','p_2a2758adb86c76a7',13,'sent',1,'2026-01-06 04:57:58.442393','2026-01-06 04:57:58.448005','2026-01-06 04:57:58.449455','dry-311130fa5b1abaed',NULL,'2026-01-06 04:57:58.442393');
INSERT INTO outbox VALUES(10,'prompt-text:12','p_4f0d5fcf55ffecfc',14,'sent',1,'2026-01-06 05:01:00.195050','2026-01-06 05:01:01.054412','2026-01-06 05:01:01.061774','dry-11fb93a955b34e59',NULL,'2026-01-06 05:01:00.195050');
INSERT INTO outbox VALUES(11,'prompt-poll:12','p_4f0d5fcf55ffecfc',15,'sent',1,'2026-01-06 05:01:00.195050','2026-01-06 05:01:01.123151','2026-01-06 05:01:01.125868','dry-04ad3b17149d6696',NULL,'2026-01-06 05:01:00.195050');
INSERT INTO outbox VALUES(12,'intensity-poll:12','p_4f0d5fcf55ffecfc',16,'sent',1,'2026-01-06 05:01:00.195050','2026-01-06 05:01:01.135812','2026-01-06 05:01:01.137753','dry-00163d7d92824425',NULL,'2026-01-06 05:01:00.195050');
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
INSERT INTO prompt_delivery VALUES(1,'p_4f0d5fcf55ffecfc',12,'s_f17cabc0','2026-01-06','Walk around the block right after dinner tonight: ten minutes is plenty.',14,15,'2026-01-06 05:01:00.068803',NULL,NULL,0,NULL,NULL);
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
INSERT INTO apscheduler_jobs VALUES('daily:p_4f0d5fcf55ffecfc:s_f17cabc0',1767762060.0,X'80059554020000000000007d94288c0776657273696f6e944b018c026964948c236461696c793a705f346630643566636635356666656366633a735f6631376361626330948c0466756e63948c2b70726f6d7074706970652e7363686564756c696e672e6a6f62733a6461696c795f70726f6d70745f647565948c0774726967676572948c1d70726f6d7074706970652e7363686564756c696e672e74726967676572948c124461696c7950726f6d7074547269676765729493942981947d942868014b018c046b696e64948c056669786564948c0a68616269745f74696d65948c0530303a3031948c0c77696e646f775f7374617274944e8c0a77696e646f775f656e64944e8c0c707265705f6d696e75746573944b008c0473656564948c0a735f6631376361626330948c047a6f6e65948c0f416d65726963612f546f726f6e746f9475628c086578656375746f72948c0764656661756c74948c046172677394298c066b7761726773947d94288c0e7061727469636970616e745f6964948c12705f34663064356663663535666665636663948c0b7363686564756c655f6964946814758c046e616d65948c106461696c795f70726f6d70745f647565948c126d6973666972655f67726163655f74696d65944d100e8c08636f616c6573636594888c0d6d61785f696e7374616e636573944b018c0d6e6578745f72756e5f74696d65948c086461746574696d65948c086461746574696d65949394430a07ea01070501000000009468258c0874696d657a6f6e6594939468258c0974696d6564656c74619493944b004b004b00879452948594529486945294752e');
INSERT INTO apscheduler_jobs VALUES('reminder:p_4f0d5fcf55ffecfc',1767693660.068803072,X'800595bd010000000000007d94288c0776657273696f6e944b018c026964948c1b72656d696e6465723a705f34663064356663663535666665636663948c0466756e63948c2470726f6d7074706970652e7363686564756c696e672e6a6f62733a74696d65725f647565948c0774726967676572948c1961707363686564756c65722e74726967676572732e64617465948c0b44617465547269676765729493942981947d942868014b018c0872756e5f64617465948c086461746574696d65948c086461746574696d65949394430a07ea01060a0100010cc394680d8c0874696d657a6f6e65949394680d8c0974696d6564656c74619493944b004b004b0087945294859452948694529475628c086578656375746f72948c0764656661756c74948c046172677394298c066b7761726773947d94288c0e7061727469636970616e745f6964948c12705f34663064356663663535666665636663948c0874696d65725f6964944b02758c046e616d65948c0974696d65725f647565948c126d6973666972655f67726163655f74696d65944d100e8c08636f616c6573636594888c0d6d61785f696e7374616e636573944b018c0d6e6578745f72756e5f74696d6594681a752e');
INSERT INTO apscheduler_jobs VALUES('feedback_check_in:p_4f0d5fcf55ffecfc',1767676560.0688030719,X'800595c6010000000000007d94288c0776657273696f6e944b018c026964948c24666565646261636b5f636865636b5f696e3a705f34663064356663663535666665636663948c0466756e63948c2470726f6d7074706970652e7363686564756c696e672e6a6f62733a74696d65725f647565948c0774726967676572948c1961707363686564756c65722e74726967676572732e64617465948c0b44617465547269676765729493942981947d942868014b018c0872756e5f64617465948c086461746574696d65948c086461746574696d65949394430a07ea0106051000010cc394680d8c0874696d657a6f6e65949394680d8c0974696d6564656c74619493944b004b004b0087945294859452948694529475628c086578656375746f72948c0764656661756c74948c046172677394298c066b7761726773947d94288c0e7061727469636970616e745f6964948c12705f34663064356663663535666665636663948c0874696d65725f6964944b03758c046e616d65948c0974696d65725f647565948c126d6973666972655f67726163655f74696d65944d100e8c08636f616c6573636594888c0d6d61785f696e7374616e636573944b018c0d6e6578745f72756e5f74696d6594681a752e');
CREATE UNIQUE INDEX ix_participant_phone ON participant (phone);
CREATE INDEX ix_participant_lid ON participant (lid);
CREATE INDEX ix_receipt_wa_message_id ON receipt (wa_message_id);
CREATE INDEX ix_lid_mapping_phone ON lid_mapping (phone);
CREATE INDEX ix_message_wa_message_id ON message (wa_message_id);
CREATE INDEX ix_message_participant_id_id ON message (participant_id, id);
CREATE INDEX ix_transition_participant_id ON transition (participant_id);
CREATE INDEX ix_schedule_participant_active ON schedule (participant_id, active);
CREATE INDEX ix_timer_participant_status ON timer (participant_id, status);
CREATE INDEX ix_timer_status_due ON timer (status, due_at);
CREATE INDEX ix_tone_event_participant_id ON tone_event (participant_id);
CREATE INDEX ix_consent_participant_id ON consent (participant_id);
CREATE INDEX ix_inbox_status_available ON inbox (status, available_at);
CREATE INDEX ix_inbox_participant_status ON inbox (participant_id, status, id);
CREATE INDEX ix_outbox_participant_id ON outbox (participant_id, id);
CREATE INDEX ix_outbox_status_available ON outbox (status, available_at);
CREATE INDEX ix_prompt_delivery_poll_message_id ON prompt_delivery (poll_message_id);
CREATE INDEX ix_prompt_delivery_participant_id ON prompt_delivery (participant_id, id);
CREATE INDEX ix_flag_participant_id ON flag (participant_id);
CREATE INDEX ix_flag_status_id ON flag (status, id);
CREATE INDEX ix_apscheduler_jobs_next_run_time ON apscheduler_jobs (next_run_time);
COMMIT;
