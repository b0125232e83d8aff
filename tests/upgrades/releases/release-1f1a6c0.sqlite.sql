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
	arm VARCHAR, 
	strata JSON, 
	day_one VARCHAR, 
	extra_days INTEGER NOT NULL, 
	completed_at DATETIME, 
	PRIMARY KEY (id)
);
INSERT INTO participant VALUES('p_06cefada641a375c','+14165550140',NULL,'Ana','America/Toronto','active',0,0,NULL,'','2026-01-06 04:57:37.197940','2026-01-06 04:58:13.957538',NULL,NULL,'default','{}','2026-01-06',0,NULL);
INSERT INTO participant VALUES('p_9267979cdaa0dd94','+14165550141',NULL,'Ben','America/Toronto','paused',1,0,'participant','','2026-01-06 04:57:45.866689','2026-01-06 04:58:22.090819',NULL,NULL,'default','{}',NULL,0,NULL);
INSERT INTO participant VALUES('p_4a8df91197429205','+14165550142',NULL,'Cleo','America/Toronto','paused',0,1,'researcher','','2026-01-06 04:57:51.487801','2026-01-06 04:58:28.159842',NULL,NULL,'default','{}',NULL,0,NULL);
INSERT INTO participant VALUES('p_185079e38fe61510','+14165550143',NULL,'Dev','America/Toronto','withdrawn',0,0,NULL,'','2026-01-06 04:57:57.435378','2026-01-06 04:58:37.226679',NULL,NULL,'default','{}',NULL,0,NULL);
INSERT INTO participant VALUES('p_b011c8a8ab363f2d','+14165550144',NULL,'Eli','America/Toronto','active',0,0,NULL,'','2026-01-06 04:58:04.369422','2026-01-06 04:58:53.504081',NULL,NULL,'default','{}',NULL,0,NULL);
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
CREATE TABLE api_token (
	id INTEGER NOT NULL, 
	name VARCHAR NOT NULL, 
	role VARCHAR NOT NULL, 
	token_hash VARCHAR NOT NULL, 
	created_at DATETIME NOT NULL, 
	created_by VARCHAR NOT NULL, 
	revoked_at DATETIME, 
	revoked_by VARCHAR, 
	PRIMARY KEY (id), 
	UNIQUE (name), 
	UNIQUE (token_hash)
);
INSERT INTO api_token VALUES(1,'fixture-admin','admin','eac7bb1381194367c20246f0988d030d48a09a65728587b703ecf98bc78aa7f4','2026-01-06 04:58:58.575988','root',NULL,NULL);
CREATE TABLE audit_log (
	id INTEGER NOT NULL, 
	actor VARCHAR NOT NULL, 
	role VARCHAR NOT NULL, 
	action VARCHAR NOT NULL, 
	participant_id VARCHAR, 
	detail JSON NOT NULL, 
	via VARCHAR NOT NULL, 
	created_at DATETIME NOT NULL, 
	PRIMARY KEY (id)
);
CREATE TABLE study_protocol (
	id INTEGER NOT NULL, 
	name VARCHAR NOT NULL, 
	hash VARCHAR NOT NULL, 
	contents TEXT NOT NULL, 
	previous_hash VARCHAR, 
	adopted_at DATETIME NOT NULL, 
	adopted_by VARCHAR NOT NULL, 
	PRIMARY KEY (id)
);
INSERT INTO study_protocol VALUES(1,'Upgrade fixture','553b57c6aead215c9957e24c8d144b810b5ba754bd829dd4d8cacd69ead930d4',replace('name = "Upgrade fixture"\nlength_days = 14\nday_one = "after_intake"\n\n[decision]\nactions = ["send", "no_send"]\np = 0.5\n','\n',char(10)),NULL,'2026-01-06 04:57:37.197940','first use (admin script, root)');
CREATE TABLE study_secret (
	name VARCHAR NOT NULL, 
	value VARCHAR NOT NULL, 
	created_at DATETIME NOT NULL, 
	PRIMARY KEY (name)
);
INSERT INTO study_secret VALUES('seed','add7feaa3b36f11e475b673c0255bf6e72f8b97618669e4addb7aadad9f1dcea','2026-01-06 04:57:37.197940');
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
INSERT INTO conversation VALUES('p_06cefada641a375c','FEEDBACK','{"habit_domain": "walking", "prompt_anchor": "after dinner", "motivational_frame": "to sleep better", "preferred_time": "00:01", "last_habit_prompt": "Walk around the block right after dinner tonight: ten minutes is plenty.", "last_prompt_sent_at": "2026-01-06T05:01:00.235153+00:00", "intensity": "normal", "intensity_poll_date": "2026-01-06", "intensity_poll_message": 16, "counters": {"prompts_sent": 1, "successes": 0, "misses": 0, "current_streak": 0, "best_streak": 0, "last_success_date": null, "last_miss_date": null}, "updated_at": "2026-01-06T04:58:13.897227+00:00", "last_turn_at": "2026-01-06T04:58:13.957477+00:00"}','{}','',0,2,4,'2026-01-06 05:01:00.257638');
INSERT INTO conversation VALUES('p_9267979cdaa0dd94','INTAKE','{"intensity": "normal", "last_turn_at": "2026-01-06T04:57:46.286861+00:00"}','{}','',0,1,3,'2026-01-06 04:58:22.090819');
INSERT INTO conversation VALUES('p_4a8df91197429205','INTAKE','{"intensity": "normal", "last_turn_at": "2026-01-06T04:57:52.934714+00:00"}','{}','',0,1,3,'2026-01-06 04:58:28.159842');
INSERT INTO conversation VALUES('p_185079e38fe61510','INTAKE','{"intensity": "normal", "last_turn_at": "2026-01-06T04:57:58.519585+00:00"}','{}','',0,1,3,'2026-01-06 04:58:37.226679');
INSERT INTO conversation VALUES('p_b011c8a8ab363f2d','INTAKE','{"intensity": "normal", "last_turn_at": "2026-01-06T04:58:05.050962+00:00"}','{}','',0,1,4,'2026-01-06 04:58:53.504081');
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
INSERT INTO message VALUES(1,'p_06cefada641a375c','out','assistant','greeting','Walk around the block right after dinner tonight: ten minutes is plenty.','{}','dry-c936455d1008ccee','sent','2026-01-06 04:57:40.340665','2026-01-06 04:57:40.381015',0);
INSERT INTO message VALUES(2,'p_9267979cdaa0dd94','out','assistant','greeting','Walk around the block right after dinner tonight: ten minutes is plenty.','{}','dry-2f462852acbdad07','sent','2026-01-06 04:57:46.286997','2026-01-06 04:57:46.394348',0);
INSERT INTO message VALUES(3,'p_4a8df91197429205','out','assistant','greeting','Walk around the block right after dinner tonight: ten minutes is plenty.','{}','dry-af9fc735a6bf4313','sent','2026-01-06 04:57:52.934788','2026-01-06 04:57:52.997112',0);
INSERT INTO message VALUES(4,'p_185079e38fe61510','out','assistant','greeting','Walk around the block right after dinner tonight: ten minutes is plenty.','{}','dry-831019bf048f0be1','sent','2026-01-06 04:57:58.519672','2026-01-06 04:57:58.544966',0);
INSERT INTO message VALUES(5,'p_b011c8a8ab363f2d','out','assistant','greeting','Walk around the block right after dinner tonight: ten minutes is plenty.','{}','dry-2af89a930cca92b1','sent','2026-01-06 04:58:05.051029','2026-01-06 04:58:05.118605',0);
INSERT INTO message VALUES(6,'p_06cefada641a375c','in','user','text','I''d like to walk around the block after dinner, just after midnight works','{}','sim-6ffe9ea0f7c52c72','answered','2026-01-06 04:58:13.210767',NULL,0);
INSERT INTO message VALUES(7,'p_06cefada641a375c','out','assistant','text','Lovely, your plan is set. I''ll nudge you each day.','{}','dry-686646d27c634bcf','sent','2026-01-06 04:58:13.957538','2026-01-06 04:58:14.307786',0);
INSERT INTO message VALUES(8,'p_9267979cdaa0dd94','in','user','text','STOP','{}','sim-e4045ef7de9bb5b2','answered','2026-01-06 04:58:21.394459',NULL,0);
INSERT INTO message VALUES(9,'p_9267979cdaa0dd94','out','assistant','command','Okay, you''re unsubscribed: you won''t get any more daily nudges, reminders or check-ins from this study. If you change your mind, send START. Send HELP for information.','{}','dry-fea398786eeae0b6','sent','2026-01-06 04:58:22.090819','2026-01-06 04:58:22.153553',0);
INSERT INTO message VALUES(10,'p_b011c8a8ab363f2d','in','user','text','STOP','{}','sim-34bb6b40336bb63d','answered','2026-01-06 04:58:45.509580',NULL,0);
INSERT INTO message VALUES(11,'p_b011c8a8ab363f2d','out','assistant','command','Okay, you''re unsubscribed: you won''t get any more daily nudges, reminders or check-ins from this study. If you change your mind, send START. Send HELP for information.','{}','dry-ad81312b311e2d42','sent','2026-01-06 04:58:46.341676','2026-01-06 04:58:46.413972',0);
INSERT INTO message VALUES(12,'p_b011c8a8ab363f2d','in','user','text','START','{}','sim-1037b8c13dc9344a','answered','2026-01-06 04:58:52.464531',NULL,0);
INSERT INTO message VALUES(13,'p_b011c8a8ab363f2d','out','assistant','command','Welcome back! Your daily nudges are switched on again.','{}','dry-df95ba43627b816a','sent','2026-01-06 04:58:53.504081','2026-01-06 04:58:53.562040',0);
INSERT INTO message VALUES(14,'p_06cefada641a375c','out','assistant','prompt','Walk around the block right after dinner tonight: ten minutes is plenty.','{"style": "personalised"}','dry-6d5745be9aedd9c0','sent','2026-01-06 05:01:00.257638','2026-01-06 05:01:00.297445',0);
INSERT INTO message VALUES(15,'p_06cefada641a375c','out','assistant','poll','Did you do it?','{"options": ["Done", "Not this time"], "purpose": "done"}','dry-40103fb80a493159','sent','2026-01-06 05:01:00.257638','2026-01-06 05:01:00.300892',0);
INSERT INTO message VALUES(16,'p_06cefada641a375c','out','assistant','poll','How do these daily steps feel to you?','{"options": ["A bit lighter, please", "Just right", "A bit more, please"], "purpose": "intensity"}','dry-3b00a1413129ad84','sent','2026-01-06 05:01:00.257638','2026-01-06 05:01:00.304758',0);
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
INSERT INTO transition VALUES(1,'p_06cefada641a375c','status','enrolled',NULL,'active','enrolled by a researcher','researcher','2026-01-06 04:57:37.197940');
INSERT INTO transition VALUES(2,'p_9267979cdaa0dd94','status','enrolled',NULL,'active','enrolled by a researcher','researcher','2026-01-06 04:57:45.866689');
INSERT INTO transition VALUES(3,'p_4a8df91197429205','status','enrolled',NULL,'active','enrolled by a researcher','researcher','2026-01-06 04:57:51.487801');
INSERT INTO transition VALUES(4,'p_185079e38fe61510','status','enrolled',NULL,'active','enrolled by a researcher','researcher','2026-01-06 04:57:57.435378');
INSERT INTO transition VALUES(5,'p_b011c8a8ab363f2d','status','enrolled',NULL,'active','enrolled by a researcher','researcher','2026-01-06 04:58:04.369422');
INSERT INTO transition VALUES(6,'p_06cefada641a375c','sub_state','intake_to_feedback','INTAKE','FEEDBACK','the plan is set','model','2026-01-06 04:58:13.957538');
INSERT INTO transition VALUES(7,'p_06cefada641a375c','study','study_started',NULL,'2026-01-06','study day 1 is the day after intake was completed','server','2026-01-06 04:58:13.957538');
INSERT INTO transition VALUES(8,'p_9267979cdaa0dd94','status','opted_out','active','paused','participant asked to stop: consent to messages withdrawn','participant','2026-01-06 04:58:22.090819');
INSERT INTO transition VALUES(9,'p_4a8df91197429205','status','paused_by_researcher','active','paused','on holiday','researcher','2026-01-06 04:58:28.159842');
INSERT INTO transition VALUES(10,'p_185079e38fe61510','status','withdrawn_by_researcher','active','withdrawn','moved away','researcher','2026-01-06 04:58:37.226679');
INSERT INTO transition VALUES(11,'p_b011c8a8ab363f2d','status','opted_out','active','paused','participant asked to stop: consent to messages withdrawn','participant','2026-01-06 04:58:46.341676');
INSERT INTO transition VALUES(12,'p_b011c8a8ab363f2d','status','opted_in','paused','active','participant sent START','participant','2026-01-06 04:58:53.504081');
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
INSERT INTO schedule VALUES('s_552cabea','p_06cefada641a375c','fixed','00:01',NULL,NULL,0,1,'2026-01-06 04:58:13.957538','2026-01-06 04:58:13.957538');
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
INSERT INTO timer VALUES(1,'p_06cefada641a375c','intake_inactive','2026-01-06 05:27:40.340581','{}','cancelled','now in FEEDBACK','2026-01-06 04:57:40.340665','2026-01-06 04:58:13.957538');
INSERT INTO timer VALUES(2,'p_9267979cdaa0dd94','intake_inactive','2026-01-06 05:27:46.286861','{}','cancelled','status changed: opted_out','2026-01-06 04:57:46.286997','2026-01-06 04:58:22.090819');
INSERT INTO timer VALUES(3,'p_4a8df91197429205','intake_inactive','2026-01-06 05:27:52.934714','{}','cancelled','status changed: paused_by_researcher','2026-01-06 04:57:52.934788','2026-01-06 04:58:28.159842');
INSERT INTO timer VALUES(4,'p_185079e38fe61510','intake_inactive','2026-01-06 05:27:58.519585','{}','cancelled','status changed: withdrawn_by_researcher','2026-01-06 04:57:58.519672','2026-01-06 04:58:37.226679');
INSERT INTO timer VALUES(5,'p_b011c8a8ab363f2d','intake_inactive','2026-01-06 05:28:05.050962','{}','cancelled','status changed: opted_out','2026-01-06 04:58:05.051029','2026-01-06 04:58:46.341676');
INSERT INTO timer VALUES(6,'p_06cefada641a375c','study_end','2026-01-20 05:00:00.000000','{"last_day": 14}','pending','end of study day 14','2026-01-06 04:58:13.957538',NULL);
INSERT INTO timer VALUES(7,'p_06cefada641a375c','feedback_check_in','2026-01-06 05:13:13.957538','{}','cancelled','daily prompt sent','2026-01-06 04:58:13.957538','2026-01-06 05:01:00.257638');
INSERT INTO timer VALUES(8,'p_06cefada641a375c','reminder','2026-01-06 10:01:00.235153','{"prompt_inbox_id": 12}','pending','daily prompt sent','2026-01-06 05:01:00.257638',NULL);
INSERT INTO timer VALUES(9,'p_06cefada641a375c','feedback_check_in','2026-01-06 05:16:00.235153','{}','pending','daily prompt sent','2026-01-06 05:01:00.257638',NULL);
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
INSERT INTO consent VALUES(1,'p_06cefada641a375c','enrolled','researcher','root','enrolled by a researcher','2026-01-06 04:57:37.197940');
INSERT INTO consent VALUES(2,'p_9267979cdaa0dd94','enrolled','researcher','root','enrolled by a researcher','2026-01-06 04:57:45.866689');
INSERT INTO consent VALUES(3,'p_4a8df91197429205','enrolled','researcher','root','enrolled by a researcher','2026-01-06 04:57:51.487801');
INSERT INTO consent VALUES(4,'p_185079e38fe61510','enrolled','researcher','root','enrolled by a researcher','2026-01-06 04:57:57.435378');
INSERT INTO consent VALUES(5,'p_b011c8a8ab363f2d','enrolled','researcher','root','enrolled by a researcher','2026-01-06 04:58:04.369422');
INSERT INTO consent VALUES(6,'p_9267979cdaa0dd94','opted_out','participant','','STOP','2026-01-06 04:58:22.090819');
INSERT INTO consent VALUES(7,'p_4a8df91197429205','paused','researcher','root','on holiday','2026-01-06 04:58:28.159842');
INSERT INTO consent VALUES(8,'p_185079e38fe61510','withdrawn','researcher','root','moved away','2026-01-06 04:58:37.226679');
INSERT INTO consent VALUES(9,'p_b011c8a8ab363f2d','opted_out','participant','','STOP','2026-01-06 04:58:46.341676');
INSERT INTO consent VALUES(10,'p_b011c8a8ab363f2d','opted_in','participant','','START','2026-01-06 04:58:53.504081');
CREATE TABLE allocation (
	participant_id VARCHAR NOT NULL, 
	stratum VARCHAR NOT NULL, 
	sequence INTEGER NOT NULL, 
	arm VARCHAR NOT NULL, 
	created_at DATETIME NOT NULL, 
	PRIMARY KEY (participant_id), 
	CONSTRAINT uq_allocation_stratum_sequence UNIQUE (stratum, sequence), 
	FOREIGN KEY(participant_id) REFERENCES participant (id)
);
INSERT INTO allocation VALUES('p_06cefada641a375c','',1,'default','2026-01-06 04:57:37.197940');
INSERT INTO allocation VALUES('p_9267979cdaa0dd94','',2,'default','2026-01-06 04:57:45.866689');
INSERT INTO allocation VALUES('p_4a8df91197429205','',3,'default','2026-01-06 04:57:51.487801');
INSERT INTO allocation VALUES('p_185079e38fe61510','',4,'default','2026-01-06 04:57:57.435378');
INSERT INTO allocation VALUES('p_b011c8a8ab363f2d','',5,'default','2026-01-06 04:58:04.369422');
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
INSERT INTO inbox VALUES(1,'enroll:p_06cefada641a375c','p_06cefada641a375c','enroll','{}',NULL,'done',0,'2026-01-06 04:57:37.197940','2026-01-06 04:57:37.197940','2026-01-06 04:57:40.340665',NULL);
INSERT INTO inbox VALUES(2,'enroll:p_9267979cdaa0dd94','p_9267979cdaa0dd94','enroll','{}',NULL,'done',0,'2026-01-06 04:57:45.866689','2026-01-06 04:57:45.866689','2026-01-06 04:57:46.286997',NULL);
INSERT INTO inbox VALUES(3,'enroll:p_4a8df91197429205','p_4a8df91197429205','enroll','{}',NULL,'done',0,'2026-01-06 04:57:51.487801','2026-01-06 04:57:51.487801','2026-01-06 04:57:52.934788',NULL);
INSERT INTO inbox VALUES(4,'enroll:p_185079e38fe61510','p_185079e38fe61510','enroll','{}',NULL,'done',0,'2026-01-06 04:57:57.435378','2026-01-06 04:57:57.435378','2026-01-06 04:57:58.519672',NULL);
INSERT INTO inbox VALUES(5,'enroll:p_b011c8a8ab363f2d','p_b011c8a8ab363f2d','enroll','{}',NULL,'done',0,'2026-01-06 04:58:04.369422','2026-01-06 04:58:04.369422','2026-01-06 04:58:05.051029',NULL);
INSERT INTO inbox VALUES(6,'wa:sim-6ffe9ea0f7c52c72','p_06cefada641a375c','message','{"wa_message_id": "sim-6ffe9ea0f7c52c72"}',6,'done',0,'2026-01-06 04:58:13.210767','2026-01-06 04:58:13.210767','2026-01-06 04:58:13.957538',NULL);
INSERT INTO inbox VALUES(7,'wa:sim-e4045ef7de9bb5b2','p_9267979cdaa0dd94','message','{"wa_message_id": "sim-e4045ef7de9bb5b2"}',8,'done',0,'2026-01-06 04:58:21.394459','2026-01-06 04:58:21.394459','2026-01-06 04:58:22.090819',NULL);
INSERT INTO inbox VALUES(8,'sync:p_4a8df91197429205:054df7e6','p_4a8df91197429205','sync','{}',NULL,'done',0,'2026-01-06 04:58:28.159842','2026-01-06 04:58:28.159842','2026-01-06 04:58:28.974245',NULL);
INSERT INTO inbox VALUES(9,'sync:p_185079e38fe61510:7e3c5791','p_185079e38fe61510','sync','{}',NULL,'done',0,'2026-01-06 04:58:37.226679','2026-01-06 04:58:37.226679','2026-01-06 04:58:38.164236',NULL);
INSERT INTO inbox VALUES(10,'wa:sim-34bb6b40336bb63d','p_b011c8a8ab363f2d','message','{"wa_message_id": "sim-34bb6b40336bb63d"}',10,'done',0,'2026-01-06 04:58:45.509580','2026-01-06 04:58:45.509580','2026-01-06 04:58:46.341676',NULL);
INSERT INTO inbox VALUES(11,'wa:sim-1037b8c13dc9344a','p_b011c8a8ab363f2d','message','{"wa_message_id": "sim-1037b8c13dc9344a"}',12,'done',0,'2026-01-06 04:58:52.464531','2026-01-06 04:58:52.464531','2026-01-06 04:58:53.504081',NULL);
INSERT INTO inbox VALUES(12,'prompt:p_06cefada641a375c:s_552cabea:2026-01-06','p_06cefada641a375c','daily_prompt','{"schedule_id": "s_552cabea", "local_date": "2026-01-06", "due_at": "2026-01-06T05:01:00+00:00"}',NULL,'done',0,'2026-01-06 05:01:00.127937','2026-01-06 05:01:00.127937','2026-01-06 05:01:00.257638',NULL);
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
INSERT INTO outbox VALUES(1,'reply:1','p_06cefada641a375c',1,'sent',1,'2026-01-06 04:57:40.340665','2026-01-06 04:57:40.373845','2026-01-06 04:57:40.381015','dry-c936455d1008ccee',NULL,'2026-01-06 04:57:40.340665');
INSERT INTO outbox VALUES(2,'reply:2','p_9267979cdaa0dd94',2,'sent',1,'2026-01-06 04:57:46.286997','2026-01-06 04:57:46.392115','2026-01-06 04:57:46.394348','dry-2f462852acbdad07',NULL,'2026-01-06 04:57:46.286997');
INSERT INTO outbox VALUES(3,'reply:3','p_4a8df91197429205',3,'sent',1,'2026-01-06 04:57:52.934788','2026-01-06 04:57:52.995844','2026-01-06 04:57:52.997112','dry-af9fc735a6bf4313',NULL,'2026-01-06 04:57:52.934788');
INSERT INTO outbox VALUES(4,'reply:4','p_185079e38fe61510',4,'sent',1,'2026-01-06 04:57:58.519672','2026-01-06 04:57:58.543794','2026-01-06 04:57:58.544966','dry-831019bf048f0be1',NULL,'2026-01-06 04:57:58.519672');
INSERT INTO outbox VALUES(5,'reply:5','p_b011c8a8ab363f2d',5,'sent',1,'2026-01-06 04:58:05.051029','2026-01-06 04:58:05.115930','2026-01-06 04:58:05.118605','dry-2af89a930cca92b1',NULL,'2026-01-06 04:58:05.051029');
INSERT INTO outbox VALUES(6,'reply:6','p_06cefada641a375c',7,'sent',1,'2026-01-06 04:58:13.957538','2026-01-06 04:58:14.268124','2026-01-06 04:58:14.307786','dry-686646d27c634bcf',NULL,'2026-01-06 04:58:13.957538');
INSERT INTO outbox VALUES(7,'reply:7','p_9267979cdaa0dd94',9,'sent',1,'2026-01-06 04:58:22.090819','2026-01-06 04:58:22.151815','2026-01-06 04:58:22.153553','dry-fea398786eeae0b6',NULL,'2026-01-06 04:58:22.090819');
INSERT INTO outbox VALUES(8,'reply:10','p_b011c8a8ab363f2d',11,'sent',1,'2026-01-06 04:58:46.341676','2026-01-06 04:58:46.406541','2026-01-06 04:58:46.413972','dry-ad81312b311e2d42',NULL,'2026-01-06 04:58:46.341676');
INSERT INTO outbox VALUES(9,'reply:11','p_b011c8a8ab363f2d',13,'sent',1,'2026-01-06 04:58:53.504081','2026-01-06 04:58:53.559947','2026-01-06 04:58:53.562040','dry-df95ba43627b816a',NULL,'2026-01-06 04:58:53.504081');
INSERT INTO outbox VALUES(10,'prompt-text:12','p_06cefada641a375c',14,'sent',1,'2026-01-06 05:01:00.257638','2026-01-06 05:01:00.296304','2026-01-06 05:01:00.297445','dry-6d5745be9aedd9c0',NULL,'2026-01-06 05:01:00.257638');
INSERT INTO outbox VALUES(11,'prompt-poll:12','p_06cefada641a375c',15,'sent',1,'2026-01-06 05:01:00.257638','2026-01-06 05:01:00.300174','2026-01-06 05:01:00.300892','dry-40103fb80a493159',NULL,'2026-01-06 05:01:00.257638');
INSERT INTO outbox VALUES(12,'intensity-poll:12','p_06cefada641a375c',16,'sent',1,'2026-01-06 05:01:00.257638','2026-01-06 05:01:00.304000','2026-01-06 05:01:00.304758','dry-3b00a1413129ad84',NULL,'2026-01-06 05:01:00.257638');
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
INSERT INTO prompt_delivery VALUES(1,'p_06cefada641a375c',12,'s_552cabea','2026-01-06','Walk around the block right after dinner tonight: ten minutes is plenty.',14,15,'2026-01-06 05:01:00.235153',NULL,NULL,0,NULL,NULL,NULL);
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
CREATE TABLE decision (
	id INTEGER NOT NULL, 
	participant_id VARCHAR NOT NULL, 
	inbox_id INTEGER NOT NULL, 
	schedule_id VARCHAR, 
	arm VARCHAR, 
	study_day INTEGER, 
	local_date VARCHAR NOT NULL, 
	scheduled_for DATETIME, 
	decided_at DATETIME NOT NULL, 
	local_time VARCHAR NOT NULL, 
	timezone VARCHAR NOT NULL, 
	available BOOLEAN NOT NULL, 
	unavailable_reason VARCHAR, 
	probability FLOAT, 
	action VARCHAR NOT NULL, 
	draw FLOAT, 
	seed_ref VARCHAR NOT NULL, 
	prompt_message_id INTEGER, 
	prompt_style VARCHAR, 
	model VARCHAR, 
	system_prompt_hash VARCHAR, 
	PRIMARY KEY (id), 
	FOREIGN KEY(participant_id) REFERENCES participant (id), 
	UNIQUE (inbox_id), 
	FOREIGN KEY(prompt_message_id) REFERENCES message (id)
);
INSERT INTO decision VALUES(1,'p_06cefada641a375c',12,'s_552cabea','default',1,'2026-01-06','2026-01-06 05:01:00.000000','2026-01-06 05:01:00.235153','2026-01-06T00:01:00-05:00','America/Toronto',1,NULL,0.5,'send',0.0020952929360815719661,'decision:prompt:p_06cefada641a375c:s_552cabea:2026-01-06',14,'personalised','gpt-4o-mini','ddc7c41db63460c48df6f72ab652b6492faedef6c6cad1dba3befa6b1f84ce25');
CREATE TABLE apscheduler_jobs (
	id VARCHAR(191) NOT NULL, 
	next_run_time FLOAT, 
	job_state BLOB NOT NULL, 
	PRIMARY KEY (id)
);
INSERT INTO apscheduler_jobs VALUES('daily:p_06cefada641a375c:s_552cabea',1767762060.0,X'80059554020000000000007d94288c0776657273696f6e944b018c026964948c236461696c793a705f303663656661646136343161333735633a735f3535326361626561948c0466756e63948c2b70726f6d7074706970652e7363686564756c696e672e6a6f62733a6461696c795f70726f6d70745f647565948c0774726967676572948c1d70726f6d7074706970652e7363686564756c696e672e74726967676572948c124461696c7950726f6d7074547269676765729493942981947d942868014b018c046b696e64948c056669786564948c0a68616269745f74696d65948c0530303a3031948c0c77696e646f775f7374617274944e8c0a77696e646f775f656e64944e8c0c707265705f6d696e75746573944b008c0473656564948c0a735f3535326361626561948c047a6f6e65948c0f416d65726963612f546f726f6e746f9475628c086578656375746f72948c0764656661756c74948c046172677394298c066b7761726773947d94288c0e7061727469636970616e745f6964948c12705f30366365666164613634316133373563948c0b7363686564756c655f6964946814758c046e616d65948c106461696c795f70726f6d70745f647565948c126d6973666972655f67726163655f74696d65944d100e8c08636f616c6573636594888c0d6d61785f696e7374616e636573944b018c0d6e6578745f72756e5f74696d65948c086461746574696d65948c086461746574696d65949394430a07ea01070501000000009468258c0874696d657a6f6e6594939468258c0974696d6564656c74619493944b004b004b00879452948594529486945294752e');
INSERT INTO apscheduler_jobs VALUES('study_end:p_06cefada641a375c',1768885200.0,X'800595be010000000000007d94288c0776657273696f6e944b018c026964948c1c73747564795f656e643a705f30366365666164613634316133373563948c0466756e63948c2470726f6d7074706970652e7363686564756c696e672e6a6f62733a74696d65725f647565948c0774726967676572948c1961707363686564756c65722e74726967676572732e64617465948c0b44617465547269676765729493942981947d942868014b018c0872756e5f64617465948c086461746574696d65948c086461746574696d65949394430a07ea011405000000000094680d8c0874696d657a6f6e65949394680d8c0974696d6564656c74619493944b004b004b0087945294859452948694529475628c086578656375746f72948c0764656661756c74948c046172677394298c066b7761726773947d94288c0e7061727469636970616e745f6964948c12705f30366365666164613634316133373563948c0874696d65725f6964944b06758c046e616d65948c0974696d65725f647565948c126d6973666972655f67726163655f74696d65944d100e8c08636f616c6573636594888c0d6d61785f696e7374616e636573944b018c0d6e6578745f72756e5f74696d6594681a752e');
INSERT INTO apscheduler_jobs VALUES('reminder:p_06cefada641a375c',1767693660.2351529598,X'800595bd010000000000007d94288c0776657273696f6e944b018c026964948c1b72656d696e6465723a705f30366365666164613634316133373563948c0466756e63948c2470726f6d7074706970652e7363686564756c696e672e6a6f62733a74696d65725f647565948c0774726967676572948c1961707363686564756c65722e74726967676572732e64617465948c0b44617465547269676765729493942981947d942868014b018c0872756e5f64617465948c086461746574696d65948c086461746574696d65949394430a07ea01060a010003969194680d8c0874696d657a6f6e65949394680d8c0974696d6564656c74619493944b004b004b0087945294859452948694529475628c086578656375746f72948c0764656661756c74948c046172677394298c066b7761726773947d94288c0e7061727469636970616e745f6964948c12705f30366365666164613634316133373563948c0874696d65725f6964944b08758c046e616d65948c0974696d65725f647565948c126d6973666972655f67726163655f74696d65944d100e8c08636f616c6573636594888c0d6d61785f696e7374616e636573944b018c0d6e6578745f72756e5f74696d6594681a752e');
INSERT INTO apscheduler_jobs VALUES('feedback_check_in:p_06cefada641a375c',1767676560.2351529598,X'800595c6010000000000007d94288c0776657273696f6e944b018c026964948c24666565646261636b5f636865636b5f696e3a705f30366365666164613634316133373563948c0466756e63948c2470726f6d7074706970652e7363686564756c696e672e6a6f62733a74696d65725f647565948c0774726967676572948c1961707363686564756c65722e74726967676572732e64617465948c0b44617465547269676765729493942981947d942868014b018c0872756e5f64617465948c086461746574696d65948c086461746574696d65949394430a07ea010605100003969194680d8c0874696d657a6f6e65949394680d8c0974696d6564656c74619493944b004b004b0087945294859452948694529475628c086578656375746f72948c0764656661756c74948c046172677394298c066b7761726773947d94288c0e7061727469636970616e745f6964948c12705f30366365666164613634316133373563948c0874696d65725f6964944b09758c046e616d65948c0974696d65725f647565948c126d6973666972655f67726163655f74696d65944d100e8c08636f616c6573636594888c0d6d61785f696e7374616e636573944b018c0d6e6578745f72756e5f74696d6594681a752e');
CREATE INDEX ix_participant_lid ON participant (lid);
CREATE UNIQUE INDEX ix_participant_phone ON participant (phone);
CREATE INDEX ix_receipt_wa_message_id ON receipt (wa_message_id);
CREATE INDEX ix_lid_mapping_phone ON lid_mapping (phone);
CREATE INDEX ix_audit_log_participant ON audit_log (participant_id, id);
CREATE INDEX ix_message_participant_id_id ON message (participant_id, id);
CREATE INDEX ix_message_participant_direction_created ON message (participant_id, direction, created_at);
CREATE INDEX ix_message_wa_message_id ON message (wa_message_id);
CREATE INDEX ix_transition_participant_id ON transition (participant_id);
CREATE INDEX ix_schedule_participant_active ON schedule (participant_id, active);
CREATE INDEX ix_timer_participant_status ON timer (participant_id, status);
CREATE INDEX ix_timer_status_due ON timer (status, due_at);
CREATE INDEX ix_tone_event_participant_id ON tone_event (participant_id);
CREATE INDEX ix_consent_participant_id ON consent (participant_id);
CREATE INDEX ix_inbox_participant_status ON inbox (participant_id, status, id);
CREATE INDEX ix_inbox_status_available ON inbox (status, available_at);
CREATE INDEX ix_outbox_participant_id ON outbox (participant_id, id);
CREATE INDEX ix_outbox_status_available ON outbox (status, available_at);
CREATE INDEX ix_prompt_delivery_participant_id ON prompt_delivery (participant_id, id);
CREATE INDEX ix_prompt_delivery_day_counts ON prompt_delivery (local_date, participant_id, vote, replied_at, prompt_message_id);
CREATE INDEX ix_prompt_delivery_sent_at ON prompt_delivery (sent_at);
CREATE INDEX ix_prompt_delivery_poll_message_id ON prompt_delivery (poll_message_id);
CREATE INDEX ix_flag_participant_id ON flag (participant_id);
CREATE INDEX ix_flag_status_id ON flag (status, id);
CREATE INDEX ix_decision_participant_id ON decision (participant_id, id);
CREATE INDEX ix_apscheduler_jobs_next_run_time ON apscheduler_jobs (next_run_time);
COMMIT;
