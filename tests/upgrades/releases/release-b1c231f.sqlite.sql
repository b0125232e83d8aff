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
INSERT INTO participant VALUES('p_7f917797d5c67d9e','+14165550140',NULL,'Ana','America/Toronto','active',0,0,NULL,'','2026-01-06 04:57:42.802440','2026-01-06 04:58:09.879177',NULL,NULL,'default','{}','2026-01-06',0,NULL);
INSERT INTO participant VALUES('p_670b3c6d426f85f3','+14165550141',NULL,'Ben','America/Toronto','paused',1,0,'participant','','2026-01-06 04:57:48.248393','2026-01-06 04:58:16.279972',NULL,NULL,'default','{}',NULL,0,NULL);
INSERT INTO participant VALUES('p_11c2fe50411bbefd','+14165550142',NULL,'Cleo','America/Toronto','paused',0,1,'researcher','','2026-01-06 04:57:52.039430','2026-01-06 04:58:20.851504',NULL,NULL,'default','{}',NULL,0,NULL);
INSERT INTO participant VALUES('p_f4252576c40962c6','+14165550143',NULL,'Dev','America/Toronto','withdrawn',0,0,NULL,'','2026-01-06 04:57:57.099916','2026-01-06 04:58:26.757246',NULL,NULL,'default','{}',NULL,0,NULL);
INSERT INTO participant VALUES('p_8edd187f35288a4a','+14165550144',NULL,'Eli','America/Toronto','active',0,0,NULL,'','2026-01-06 04:58:02.654549','2026-01-06 04:58:42.007960',NULL,NULL,'default','{}',NULL,0,NULL);
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
INSERT INTO api_token VALUES(1,'fixture-admin','admin','6facde92f830d788cd9a2075ceafeda9bf8d80535e8f5dca994f2251c27e8c09','2026-01-06 04:58:48.293302','root',NULL,NULL);
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
INSERT INTO study_protocol VALUES(1,'Upgrade fixture','553b57c6aead215c9957e24c8d144b810b5ba754bd829dd4d8cacd69ead930d4',replace('name = "Upgrade fixture"\nlength_days = 14\nday_one = "after_intake"\n\n[decision]\nactions = ["send", "no_send"]\np = 0.5\n','\n',char(10)),NULL,'2026-01-06 04:57:42.802440','first use (admin script, root)');
CREATE TABLE study_secret (
	name VARCHAR NOT NULL, 
	value VARCHAR NOT NULL, 
	created_at DATETIME NOT NULL, 
	PRIMARY KEY (name)
);
INSERT INTO study_secret VALUES('seed','e79a1aee49b117caa6e0d7fc615d2d1503cc9f0e81b9c97cd8aebe523d983ea2','2026-01-06 04:57:42.802440');
INSERT INTO study_secret VALUES('allocation_scheme','hmac-sha256-v1','2026-01-06 04:57:42.802440');
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
INSERT INTO conversation VALUES('p_7f917797d5c67d9e','FEEDBACK','{"habit_domain": "walking", "prompt_anchor": "after dinner", "motivational_frame": "to sleep better", "preferred_time": "00:01", "last_habit_prompt": "Walk around the block right after dinner tonight: ten minutes is plenty.", "last_prompt_sent_at": "2026-01-06T05:01:00.073869+00:00", "intensity": "normal", "intensity_poll_date": "2026-01-06", "intensity_poll_message": 16, "counters": {"prompts_sent": 1, "successes": 0, "misses": 0, "current_streak": 0, "best_streak": 0, "last_success_date": null, "last_miss_date": null}, "updated_at": "2026-01-06T04:58:09.816244+00:00", "last_turn_at": "2026-01-06T04:58:09.879095+00:00"}','{}','',0,2,4,'2026-01-06 05:01:00.087673');
INSERT INTO conversation VALUES('p_670b3c6d426f85f3','INTAKE','{"intensity": "normal", "last_turn_at": "2026-01-06T04:57:49.149353+00:00"}','{}','',0,1,3,'2026-01-06 04:58:16.279972');
INSERT INTO conversation VALUES('p_11c2fe50411bbefd','INTAKE','{"intensity": "normal", "last_turn_at": "2026-01-06T04:57:53.169397+00:00"}','{}','',0,1,3,'2026-01-06 04:58:20.851504');
INSERT INTO conversation VALUES('p_f4252576c40962c6','INTAKE','{"intensity": "normal", "last_turn_at": "2026-01-06T04:57:58.027137+00:00"}','{}','',0,1,3,'2026-01-06 04:58:26.757246');
INSERT INTO conversation VALUES('p_8edd187f35288a4a','INTAKE','{"intensity": "normal", "last_turn_at": "2026-01-06T04:58:03.618890+00:00"}','{}','',0,1,4,'2026-01-06 04:58:42.007960');
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
INSERT INTO message VALUES(1,'p_7f917797d5c67d9e','out','assistant','greeting','Walk around the block right after dinner tonight: ten minutes is plenty.','{}','dry-5f1f728aece0ae06','sent','2026-01-06 04:57:44.379849','2026-01-06 04:57:44.491804',0);
INSERT INTO message VALUES(2,'p_670b3c6d426f85f3','out','assistant','greeting','Walk around the block right after dinner tonight: ten minutes is plenty.','{}','dry-49c63f6e1f17916d','sent','2026-01-06 04:57:49.149500','2026-01-06 04:57:49.238470',0);
INSERT INTO message VALUES(3,'p_11c2fe50411bbefd','out','assistant','greeting','Walk around the block right after dinner tonight: ten minutes is plenty.','{}','dry-0206ee2c35b3b2f5','sent','2026-01-06 04:57:53.169521','2026-01-06 04:57:53.189409',0);
INSERT INTO message VALUES(4,'p_f4252576c40962c6','out','assistant','greeting','Walk around the block right after dinner tonight: ten minutes is plenty.','{}','dry-612b131120f4545f','sent','2026-01-06 04:57:58.027252','2026-01-06 04:57:58.104763',0);
INSERT INTO message VALUES(5,'p_8edd187f35288a4a','out','assistant','greeting','Walk around the block right after dinner tonight: ten minutes is plenty.','{}','dry-b03e51faf4593e4c','sent','2026-01-06 04:58:03.618986','2026-01-06 04:58:03.639433',0);
INSERT INTO message VALUES(6,'p_7f917797d5c67d9e','in','user','text','I''d like to walk around the block after dinner, just after midnight works','{}','sim-0d72ce992cd8abfe','answered','2026-01-06 04:58:09.119810',NULL,0);
INSERT INTO message VALUES(7,'p_7f917797d5c67d9e','out','assistant','text','Lovely, your plan is set. I''ll nudge you each day.','{}','dry-7096ed9447675111','sent','2026-01-06 04:58:09.879177','2026-01-06 04:58:09.996339',0);
INSERT INTO message VALUES(8,'p_670b3c6d426f85f3','in','user','text','STOP','{}','sim-337a2730a84f1034','answered','2026-01-06 04:58:15.433402',NULL,0);
INSERT INTO message VALUES(9,'p_670b3c6d426f85f3','out','assistant','command','Okay, you''re unsubscribed: you won''t get any more daily nudges, reminders or check-ins from this study. If you change your mind, send START. Send HELP for information.','{}','dry-5a72410ecaad5e06','sent','2026-01-06 04:58:16.279972','2026-01-06 04:58:16.305026',0);
INSERT INTO message VALUES(10,'p_8edd187f35288a4a','in','user','text','STOP','{}','sim-32cce2188b1570a4','answered','2026-01-06 04:58:31.968809',NULL,0);
INSERT INTO message VALUES(11,'p_8edd187f35288a4a','out','assistant','command','Okay, you''re unsubscribed: you won''t get any more daily nudges, reminders or check-ins from this study. If you change your mind, send START. Send HELP for information.','{}','dry-14c2b6c3d104be13','sent','2026-01-06 04:58:32.555999','2026-01-06 04:58:32.573580',0);
INSERT INTO message VALUES(12,'p_8edd187f35288a4a','in','user','text','START','{}','sim-dd7f6d8d51bca174','answered','2026-01-06 04:58:41.433530',NULL,0);
INSERT INTO message VALUES(13,'p_8edd187f35288a4a','out','assistant','command','Welcome back! Your daily nudges are switched on again.','{}','dry-5f3af4911075d942','sent','2026-01-06 04:58:42.007960','2026-01-06 04:58:42.040051',0);
INSERT INTO message VALUES(14,'p_7f917797d5c67d9e','out','assistant','prompt','Walk around the block right after dinner tonight: ten minutes is plenty.','{"style": "personalised"}','dry-baf8a91f5eb5c256','sent','2026-01-06 05:01:00.087673','2026-01-06 05:01:00.132035',0);
INSERT INTO message VALUES(15,'p_7f917797d5c67d9e','out','assistant','poll','Did you do it?','{"options": ["Done", "Not this time"], "purpose": "done"}','dry-161cc1516b853bb4','sent','2026-01-06 05:01:00.087673','2026-01-06 05:01:00.137893',0);
INSERT INTO message VALUES(16,'p_7f917797d5c67d9e','out','assistant','poll','How do these daily steps feel to you?','{"options": ["A bit lighter, please", "Just right", "A bit more, please"], "purpose": "intensity"}','dry-0dab5231be08cf81','sent','2026-01-06 05:01:00.087673','2026-01-06 05:01:00.139892',0);
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
INSERT INTO transition VALUES(1,'p_7f917797d5c67d9e','status','enrolled',NULL,'active','enrolled by a researcher','researcher','2026-01-06 04:57:42.802440');
INSERT INTO transition VALUES(2,'p_670b3c6d426f85f3','status','enrolled',NULL,'active','enrolled by a researcher','researcher','2026-01-06 04:57:48.248393');
INSERT INTO transition VALUES(3,'p_11c2fe50411bbefd','status','enrolled',NULL,'active','enrolled by a researcher','researcher','2026-01-06 04:57:52.039430');
INSERT INTO transition VALUES(4,'p_f4252576c40962c6','status','enrolled',NULL,'active','enrolled by a researcher','researcher','2026-01-06 04:57:57.099916');
INSERT INTO transition VALUES(5,'p_8edd187f35288a4a','status','enrolled',NULL,'active','enrolled by a researcher','researcher','2026-01-06 04:58:02.654549');
INSERT INTO transition VALUES(6,'p_7f917797d5c67d9e','sub_state','intake_to_feedback','INTAKE','FEEDBACK','the plan is set','model','2026-01-06 04:58:09.879177');
INSERT INTO transition VALUES(7,'p_7f917797d5c67d9e','study','study_started',NULL,'2026-01-06','study day 1 is the day after intake was completed','server','2026-01-06 04:58:09.879177');
INSERT INTO transition VALUES(8,'p_670b3c6d426f85f3','status','opted_out','active','paused','participant asked to stop: consent to messages withdrawn','participant','2026-01-06 04:58:16.279972');
INSERT INTO transition VALUES(9,'p_11c2fe50411bbefd','status','paused_by_researcher','active','paused','on holiday','researcher','2026-01-06 04:58:20.851504');
INSERT INTO transition VALUES(10,'p_f4252576c40962c6','status','withdrawn_by_researcher','active','withdrawn','moved away','researcher','2026-01-06 04:58:26.757246');
INSERT INTO transition VALUES(11,'p_8edd187f35288a4a','status','opted_out','active','paused','participant asked to stop: consent to messages withdrawn','participant','2026-01-06 04:58:32.555999');
INSERT INTO transition VALUES(12,'p_8edd187f35288a4a','status','opted_in','paused','active','participant sent START','participant','2026-01-06 04:58:42.007960');
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
INSERT INTO schedule VALUES('s_c691a80a','p_7f917797d5c67d9e','fixed','00:01',NULL,NULL,0,1,'2026-01-06 04:58:09.879177','2026-01-06 04:58:09.879177');
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
INSERT INTO timer VALUES(1,'p_7f917797d5c67d9e','intake_inactive','2026-01-06 05:27:44.379676','{}','cancelled','now in FEEDBACK','2026-01-06 04:57:44.379849','2026-01-06 04:58:09.879177');
INSERT INTO timer VALUES(2,'p_670b3c6d426f85f3','intake_inactive','2026-01-06 05:27:49.149353','{}','cancelled','status changed: opted_out','2026-01-06 04:57:49.149500','2026-01-06 04:58:16.279972');
INSERT INTO timer VALUES(3,'p_11c2fe50411bbefd','intake_inactive','2026-01-06 05:27:53.169397','{}','cancelled','status changed: paused_by_researcher','2026-01-06 04:57:53.169521','2026-01-06 04:58:20.851504');
INSERT INTO timer VALUES(4,'p_f4252576c40962c6','intake_inactive','2026-01-06 05:27:58.027137','{}','cancelled','status changed: withdrawn_by_researcher','2026-01-06 04:57:58.027252','2026-01-06 04:58:26.757246');
INSERT INTO timer VALUES(5,'p_8edd187f35288a4a','intake_inactive','2026-01-06 05:28:03.618890','{}','cancelled','status changed: opted_out','2026-01-06 04:58:03.618986','2026-01-06 04:58:32.555999');
INSERT INTO timer VALUES(6,'p_7f917797d5c67d9e','study_end','2026-01-20 05:00:00.000000','{"last_day": 14}','pending','end of study day 14','2026-01-06 04:58:09.879177',NULL);
INSERT INTO timer VALUES(7,'p_7f917797d5c67d9e','feedback_check_in','2026-01-06 05:13:09.879177','{}','cancelled','daily prompt sent','2026-01-06 04:58:09.879177','2026-01-06 05:01:00.087673');
INSERT INTO timer VALUES(8,'p_7f917797d5c67d9e','reminder','2026-01-06 10:01:00.073869','{"prompt_inbox_id": 12}','pending','daily prompt sent','2026-01-06 05:01:00.087673',NULL);
INSERT INTO timer VALUES(9,'p_7f917797d5c67d9e','feedback_check_in','2026-01-06 05:16:00.073869','{}','pending','daily prompt sent','2026-01-06 05:01:00.087673',NULL);
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
INSERT INTO consent VALUES(1,'p_7f917797d5c67d9e','enrolled','researcher','root','enrolled by a researcher','2026-01-06 04:57:42.802440');
INSERT INTO consent VALUES(2,'p_670b3c6d426f85f3','enrolled','researcher','root','enrolled by a researcher','2026-01-06 04:57:48.248393');
INSERT INTO consent VALUES(3,'p_11c2fe50411bbefd','enrolled','researcher','root','enrolled by a researcher','2026-01-06 04:57:52.039430');
INSERT INTO consent VALUES(4,'p_f4252576c40962c6','enrolled','researcher','root','enrolled by a researcher','2026-01-06 04:57:57.099916');
INSERT INTO consent VALUES(5,'p_8edd187f35288a4a','enrolled','researcher','root','enrolled by a researcher','2026-01-06 04:58:02.654549');
INSERT INTO consent VALUES(6,'p_670b3c6d426f85f3','opted_out','participant','','STOP','2026-01-06 04:58:16.279972');
INSERT INTO consent VALUES(7,'p_11c2fe50411bbefd','paused','researcher','root','on holiday','2026-01-06 04:58:20.851504');
INSERT INTO consent VALUES(8,'p_f4252576c40962c6','withdrawn','researcher','root','moved away','2026-01-06 04:58:26.757246');
INSERT INTO consent VALUES(9,'p_8edd187f35288a4a','opted_out','participant','','STOP','2026-01-06 04:58:32.555999');
INSERT INTO consent VALUES(10,'p_8edd187f35288a4a','opted_in','participant','','START','2026-01-06 04:58:42.007960');
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
INSERT INTO allocation VALUES('p_7f917797d5c67d9e','',1,'default','2026-01-06 04:57:42.802440');
INSERT INTO allocation VALUES('p_670b3c6d426f85f3','',2,'default','2026-01-06 04:57:48.248393');
INSERT INTO allocation VALUES('p_11c2fe50411bbefd','',3,'default','2026-01-06 04:57:52.039430');
INSERT INTO allocation VALUES('p_f4252576c40962c6','',4,'default','2026-01-06 04:57:57.099916');
INSERT INTO allocation VALUES('p_8edd187f35288a4a','',5,'default','2026-01-06 04:58:02.654549');
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
INSERT INTO inbox VALUES(1,'enroll:p_7f917797d5c67d9e','p_7f917797d5c67d9e','enroll','{}',NULL,'done',0,'2026-01-06 04:57:42.802440','2026-01-06 04:57:42.802440','2026-01-06 04:57:44.379849',NULL);
INSERT INTO inbox VALUES(2,'enroll:p_670b3c6d426f85f3','p_670b3c6d426f85f3','enroll','{}',NULL,'done',0,'2026-01-06 04:57:48.248393','2026-01-06 04:57:48.248393','2026-01-06 04:57:49.149500',NULL);
INSERT INTO inbox VALUES(3,'enroll:p_11c2fe50411bbefd','p_11c2fe50411bbefd','enroll','{}',NULL,'done',0,'2026-01-06 04:57:52.039430','2026-01-06 04:57:52.039430','2026-01-06 04:57:53.169521',NULL);
INSERT INTO inbox VALUES(4,'enroll:p_f4252576c40962c6','p_f4252576c40962c6','enroll','{}',NULL,'done',0,'2026-01-06 04:57:57.099916','2026-01-06 04:57:57.099916','2026-01-06 04:57:58.027252',NULL);
INSERT INTO inbox VALUES(5,'enroll:p_8edd187f35288a4a','p_8edd187f35288a4a','enroll','{}',NULL,'done',0,'2026-01-06 04:58:02.654549','2026-01-06 04:58:02.654549','2026-01-06 04:58:03.618986',NULL);
INSERT INTO inbox VALUES(6,'wa:sim-0d72ce992cd8abfe','p_7f917797d5c67d9e','message','{"wa_message_id": "sim-0d72ce992cd8abfe"}',6,'done',0,'2026-01-06 04:58:09.119810','2026-01-06 04:58:09.119810','2026-01-06 04:58:09.879177',NULL);
INSERT INTO inbox VALUES(7,'wa:sim-337a2730a84f1034','p_670b3c6d426f85f3','message','{"wa_message_id": "sim-337a2730a84f1034"}',8,'done',0,'2026-01-06 04:58:15.433402','2026-01-06 04:58:15.433402','2026-01-06 04:58:16.279972',NULL);
INSERT INTO inbox VALUES(8,'sync:p_11c2fe50411bbefd:9fcfcc63','p_11c2fe50411bbefd','sync','{}',NULL,'done',0,'2026-01-06 04:58:20.851504','2026-01-06 04:58:20.851504','2026-01-06 04:58:21.728042',NULL);
INSERT INTO inbox VALUES(9,'sync:p_f4252576c40962c6:a74f1a03','p_f4252576c40962c6','sync','{}',NULL,'done',0,'2026-01-06 04:58:26.757246','2026-01-06 04:58:26.757246','2026-01-06 04:58:27.348517',NULL);
INSERT INTO inbox VALUES(10,'wa:sim-32cce2188b1570a4','p_8edd187f35288a4a','message','{"wa_message_id": "sim-32cce2188b1570a4"}',10,'done',0,'2026-01-06 04:58:31.968809','2026-01-06 04:58:31.968809','2026-01-06 04:58:32.555999',NULL);
INSERT INTO inbox VALUES(11,'wa:sim-dd7f6d8d51bca174','p_8edd187f35288a4a','message','{"wa_message_id": "sim-dd7f6d8d51bca174"}',12,'done',0,'2026-01-06 04:58:41.433530','2026-01-06 04:58:41.433530','2026-01-06 04:58:42.007960',NULL);
INSERT INTO inbox VALUES(12,'prompt:p_7f917797d5c67d9e:s_c691a80a:2026-01-06','p_7f917797d5c67d9e','daily_prompt','{"schedule_id": "s_c691a80a", "local_date": "2026-01-06", "due_at": "2026-01-06T05:01:00+00:00"}',NULL,'done',0,'2026-01-06 05:01:00.042141','2026-01-06 05:01:00.042141','2026-01-06 05:01:00.087673',NULL);
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
	held_until DATETIME, 
	PRIMARY KEY (id), 
	UNIQUE ("key"), 
	FOREIGN KEY(participant_id) REFERENCES participant (id), 
	FOREIGN KEY(message_id) REFERENCES message (id)
);
INSERT INTO outbox VALUES(1,'reply:1','p_7f917797d5c67d9e',1,'sent',1,'2026-01-06 04:57:44.379849','2026-01-06 04:57:44.488481','2026-01-06 04:57:44.491804','dry-5f1f728aece0ae06',NULL,'2026-01-06 04:57:44.379849',NULL);
INSERT INTO outbox VALUES(2,'reply:2','p_670b3c6d426f85f3',2,'sent',1,'2026-01-06 04:57:49.149500','2026-01-06 04:57:49.226520','2026-01-06 04:57:49.238470','dry-49c63f6e1f17916d',NULL,'2026-01-06 04:57:49.149500',NULL);
INSERT INTO outbox VALUES(3,'reply:3','p_11c2fe50411bbefd',3,'sent',1,'2026-01-06 04:57:53.169521','2026-01-06 04:57:53.187544','2026-01-06 04:57:53.189409','dry-0206ee2c35b3b2f5',NULL,'2026-01-06 04:57:53.169521',NULL);
INSERT INTO outbox VALUES(4,'reply:4','p_f4252576c40962c6',4,'sent',1,'2026-01-06 04:57:58.027252','2026-01-06 04:57:58.080405','2026-01-06 04:57:58.104763','dry-612b131120f4545f',NULL,'2026-01-06 04:57:58.027252',NULL);
INSERT INTO outbox VALUES(5,'reply:5','p_8edd187f35288a4a',5,'sent',1,'2026-01-06 04:58:03.618986','2026-01-06 04:58:03.637757','2026-01-06 04:58:03.639433','dry-b03e51faf4593e4c',NULL,'2026-01-06 04:58:03.618986',NULL);
INSERT INTO outbox VALUES(6,'reply:6','p_7f917797d5c67d9e',7,'sent',1,'2026-01-06 04:58:09.879177','2026-01-06 04:58:09.987928','2026-01-06 04:58:09.996339','dry-7096ed9447675111',NULL,'2026-01-06 04:58:09.879177',NULL);
INSERT INTO outbox VALUES(7,'command-reply:7','p_670b3c6d426f85f3',9,'sent',1,'2026-01-06 04:58:16.279972','2026-01-06 04:58:16.302164','2026-01-06 04:58:16.305026','dry-5a72410ecaad5e06',NULL,'2026-01-06 04:58:16.279972',NULL);
INSERT INTO outbox VALUES(8,'command-reply:10','p_8edd187f35288a4a',11,'sent',1,'2026-01-06 04:58:32.555999','2026-01-06 04:58:32.572111','2026-01-06 04:58:32.573580','dry-14c2b6c3d104be13',NULL,'2026-01-06 04:58:32.555999',NULL);
INSERT INTO outbox VALUES(9,'command-reply:11','p_8edd187f35288a4a',13,'sent',1,'2026-01-06 04:58:42.007960','2026-01-06 04:58:42.037808','2026-01-06 04:58:42.040051','dry-5f3af4911075d942',NULL,'2026-01-06 04:58:42.007960',NULL);
INSERT INTO outbox VALUES(10,'prompt-text:12','p_7f917797d5c67d9e',14,'sent',1,'2026-01-06 05:01:00.087673','2026-01-06 05:01:00.129928','2026-01-06 05:01:00.132035','dry-baf8a91f5eb5c256',NULL,'2026-01-06 05:01:00.087673',NULL);
INSERT INTO outbox VALUES(11,'prompt-poll:12','p_7f917797d5c67d9e',15,'sent',1,'2026-01-06 05:01:00.087673','2026-01-06 05:01:00.136401','2026-01-06 05:01:00.137893','dry-161cc1516b853bb4',NULL,'2026-01-06 05:01:00.087673',NULL);
INSERT INTO outbox VALUES(12,'intensity-poll:12','p_7f917797d5c67d9e',16,'sent',1,'2026-01-06 05:01:00.087673','2026-01-06 05:01:00.138690','2026-01-06 05:01:00.139892','dry-0dab5231be08cf81',NULL,'2026-01-06 05:01:00.087673',NULL);
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
INSERT INTO prompt_delivery VALUES(1,'p_7f917797d5c67d9e',12,'s_c691a80a','2026-01-06','Walk around the block right after dinner tonight: ten minutes is plenty.',14,15,'2026-01-06 05:01:00.073869',NULL,NULL,0,NULL,NULL,NULL);
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
	protocol_hash VARCHAR, 
	not_sent_reason VARCHAR, 
	PRIMARY KEY (id), 
	FOREIGN KEY(participant_id) REFERENCES participant (id), 
	UNIQUE (inbox_id), 
	FOREIGN KEY(prompt_message_id) REFERENCES message (id)
);
INSERT INTO decision VALUES(1,'p_7f917797d5c67d9e',12,'s_c691a80a','default',1,'2026-01-06','2026-01-06 05:01:00.000000','2026-01-06 05:01:00.073869','2026-01-06T00:01:00-05:00','America/Toronto',1,NULL,0.5,'send',0.20275208313124082337,'decision:prompt:p_7f917797d5c67d9e:s_c691a80a:2026-01-06',14,'personalised','gpt-4o-mini','ddc7c41db63460c48df6f72ab652b6492faedef6c6cad1dba3befa6b1f84ce25','553b57c6aead215c9957e24c8d144b810b5ba754bd829dd4d8cacd69ead930d4',NULL);
CREATE TABLE self_report (
	id INTEGER NOT NULL, 
	participant_id VARCHAR NOT NULL, 
	local_date VARCHAR NOT NULL, 
	poll_message_id INTEGER, 
	asked_at DATETIME NOT NULL, 
	answer VARCHAR, 
	answered_at DATETIME, 
	PRIMARY KEY (id), 
	CONSTRAINT uq_self_report_day UNIQUE (participant_id, local_date), 
	FOREIGN KEY(participant_id) REFERENCES participant (id), 
	FOREIGN KEY(poll_message_id) REFERENCES message (id)
);
CREATE TABLE apscheduler_jobs (
	id VARCHAR(191) NOT NULL, 
	next_run_time FLOAT, 
	job_state BLOB NOT NULL, 
	PRIMARY KEY (id)
);
INSERT INTO apscheduler_jobs VALUES('daily:p_7f917797d5c67d9e:s_c691a80a',1767762060.0,X'80059554020000000000007d94288c0776657273696f6e944b018c026964948c236461696c793a705f376639313737393764356336376439653a735f6336393161383061948c0466756e63948c2b70726f6d7074706970652e7363686564756c696e672e6a6f62733a6461696c795f70726f6d70745f647565948c0774726967676572948c1d70726f6d7074706970652e7363686564756c696e672e74726967676572948c124461696c7950726f6d7074547269676765729493942981947d942868014b018c046b696e64948c056669786564948c0a68616269745f74696d65948c0530303a3031948c0c77696e646f775f7374617274944e8c0a77696e646f775f656e64944e8c0c707265705f6d696e75746573944b008c0473656564948c0a735f6336393161383061948c047a6f6e65948c0f416d65726963612f546f726f6e746f9475628c086578656375746f72948c0764656661756c74948c046172677394298c066b7761726773947d94288c0e7061727469636970616e745f6964948c12705f37663931373739376435633637643965948c0b7363686564756c655f6964946814758c046e616d65948c106461696c795f70726f6d70745f647565948c126d6973666972655f67726163655f74696d65944d100e8c08636f616c6573636594888c0d6d61785f696e7374616e636573944b018c0d6e6578745f72756e5f74696d65948c086461746574696d65948c086461746574696d65949394430a07ea01070501000000009468258c0874696d657a6f6e6594939468258c0974696d6564656c74619493944b004b004b00879452948594529486945294752e');
INSERT INTO apscheduler_jobs VALUES('study_end:p_7f917797d5c67d9e',1768885200.0,X'800595be010000000000007d94288c0776657273696f6e944b018c026964948c1c73747564795f656e643a705f37663931373739376435633637643965948c0466756e63948c2470726f6d7074706970652e7363686564756c696e672e6a6f62733a74696d65725f647565948c0774726967676572948c1961707363686564756c65722e74726967676572732e64617465948c0b44617465547269676765729493942981947d942868014b018c0872756e5f64617465948c086461746574696d65948c086461746574696d65949394430a07ea011405000000000094680d8c0874696d657a6f6e65949394680d8c0974696d6564656c74619493944b004b004b0087945294859452948694529475628c086578656375746f72948c0764656661756c74948c046172677394298c066b7761726773947d94288c0e7061727469636970616e745f6964948c12705f37663931373739376435633637643965948c0874696d65725f6964944b06758c046e616d65948c0974696d65725f647565948c126d6973666972655f67726163655f74696d65944d100e8c08636f616c6573636594888c0d6d61785f696e7374616e636573944b018c0d6e6578745f72756e5f74696d6594681a752e');
INSERT INTO apscheduler_jobs VALUES('reminder:p_7f917797d5c67d9e',1767693660.0738689899,X'800595bd010000000000007d94288c0776657273696f6e944b018c026964948c1b72656d696e6465723a705f37663931373739376435633637643965948c0466756e63948c2470726f6d7074706970652e7363686564756c696e672e6a6f62733a74696d65725f647565948c0774726967676572948c1961707363686564756c65722e74726967676572732e64617465948c0b44617465547269676765729493942981947d942868014b018c0872756e5f64617465948c086461746574696d65948c086461746574696d65949394430a07ea01060a010001208d94680d8c0874696d657a6f6e65949394680d8c0974696d6564656c74619493944b004b004b0087945294859452948694529475628c086578656375746f72948c0764656661756c74948c046172677394298c066b7761726773947d94288c0e7061727469636970616e745f6964948c12705f37663931373739376435633637643965948c0874696d65725f6964944b08758c046e616d65948c0974696d65725f647565948c126d6973666972655f67726163655f74696d65944d100e8c08636f616c6573636594888c0d6d61785f696e7374616e636573944b018c0d6e6578745f72756e5f74696d6594681a752e');
INSERT INTO apscheduler_jobs VALUES('feedback_check_in:p_7f917797d5c67d9e',1767676560.0738689899,X'800595c6010000000000007d94288c0776657273696f6e944b018c026964948c24666565646261636b5f636865636b5f696e3a705f37663931373739376435633637643965948c0466756e63948c2470726f6d7074706970652e7363686564756c696e672e6a6f62733a74696d65725f647565948c0774726967676572948c1961707363686564756c65722e74726967676572732e64617465948c0b44617465547269676765729493942981947d942868014b018c0872756e5f64617465948c086461746574696d65948c086461746574696d65949394430a07ea010605100001208d94680d8c0874696d657a6f6e65949394680d8c0974696d6564656c74619493944b004b004b0087945294859452948694529475628c086578656375746f72948c0764656661756c74948c046172677394298c066b7761726773947d94288c0e7061727469636970616e745f6964948c12705f37663931373739376435633637643965948c0874696d65725f6964944b09758c046e616d65948c0974696d65725f647565948c126d6973666972655f67726163655f74696d65944d100e8c08636f616c6573636594888c0d6d61785f696e7374616e636573944b018c0d6e6578745f72756e5f74696d6594681a752e');
CREATE UNIQUE INDEX ix_participant_phone ON participant (phone);
CREATE INDEX ix_participant_lid ON participant (lid);
CREATE INDEX ix_receipt_wa_message_id ON receipt (wa_message_id);
CREATE INDEX ix_lid_mapping_phone ON lid_mapping (phone);
CREATE INDEX ix_audit_log_participant ON audit_log (participant_id, id);
CREATE INDEX ix_message_participant_direction_created ON message (participant_id, direction, created_at);
CREATE INDEX ix_message_participant_id_id ON message (participant_id, id);
CREATE INDEX ix_message_wa_message_id ON message (wa_message_id);
CREATE INDEX ix_transition_participant_id ON transition (participant_id);
CREATE INDEX ix_schedule_participant_active ON schedule (participant_id, active);
CREATE INDEX ix_timer_participant_status ON timer (participant_id, status);
CREATE INDEX ix_timer_status_due ON timer (status, due_at);
CREATE INDEX ix_tone_event_participant_id ON tone_event (participant_id);
CREATE INDEX ix_consent_participant_id ON consent (participant_id);
CREATE INDEX ix_inbox_status_available ON inbox (status, available_at);
CREATE INDEX ix_inbox_participant_status ON inbox (participant_id, status, id);
CREATE INDEX ix_outbox_status_available ON outbox (status, available_at);
CREATE INDEX ix_outbox_participant_id ON outbox (participant_id, id);
CREATE INDEX ix_prompt_delivery_poll_message_id ON prompt_delivery (poll_message_id);
CREATE INDEX ix_prompt_delivery_sent_at ON prompt_delivery (sent_at);
CREATE INDEX ix_prompt_delivery_participant_id ON prompt_delivery (participant_id, id);
CREATE INDEX ix_prompt_delivery_day_counts ON prompt_delivery (local_date, participant_id, vote, replied_at, prompt_message_id);
CREATE INDEX ix_flag_participant_id ON flag (participant_id);
CREATE INDEX ix_flag_status_id ON flag (status, id);
CREATE INDEX ix_decision_participant_id ON decision (participant_id, id);
CREATE INDEX ix_self_report_poll_message_id ON self_report (poll_message_id);
CREATE INDEX ix_apscheduler_jobs_next_run_time ON apscheduler_jobs (next_run_time);
COMMIT;
