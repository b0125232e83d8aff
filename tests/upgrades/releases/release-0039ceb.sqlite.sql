PRAGMA foreign_keys=OFF;
BEGIN TRANSACTION;
CREATE TABLE participant (
	id VARCHAR NOT NULL, 
	phone VARCHAR NOT NULL, 
	lid VARCHAR, 
	name VARCHAR NOT NULL, 
	timezone VARCHAR NOT NULL, 
	status VARCHAR NOT NULL, 
	background TEXT NOT NULL, 
	enrolled_at DATETIME NOT NULL, 
	updated_at DATETIME NOT NULL, 
	PRIMARY KEY (id)
);
INSERT INTO participant VALUES('p_85a2c37e65498c36','+14165550140',NULL,'Ana','America/Toronto','active','','2026-01-06 04:57:32.954899','2026-01-06 04:57:32.954899');
INSERT INTO participant VALUES('p_6e3793d8ce340abc','+14165550141',NULL,'Ben','America/Toronto','active','','2026-01-06 04:57:36.084680','2026-01-06 04:57:36.084680');
INSERT INTO participant VALUES('p_d93c1649e18e3086','+14165550142',NULL,'Cleo','America/Toronto','active','','2026-01-06 04:57:36.978189','2026-01-06 04:57:36.978189');
INSERT INTO participant VALUES('p_251ffc3f997197b5','+14165550143',NULL,'Dev','America/Toronto','active','','2026-01-06 04:57:39.156724','2026-01-06 04:57:39.156724');
INSERT INTO participant VALUES('p_106f7c73f62ffa98','+14165550144',NULL,'Eli','America/Toronto','active','','2026-01-06 04:57:41.422133','2026-01-06 04:57:41.422133');
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
INSERT INTO conversation VALUES('p_85a2c37e65498c36','FEEDBACK','{"habit_domain": "walking", "prompt_anchor": "after dinner", "motivational_frame": "to sleep better", "preferred_time": "00:01", "updated_at": "2026-01-06T04:57:45.278014+00:00"}','{}','',3,'2026-01-06 04:57:45.717166');
INSERT INTO conversation VALUES('p_6e3793d8ce340abc','INTAKE','{}','{}','',3,'2026-01-06 04:57:48.517462');
INSERT INTO conversation VALUES('p_d93c1649e18e3086','INTAKE','{}','{}','',2,'2026-01-06 04:57:38.159051');
INSERT INTO conversation VALUES('p_251ffc3f997197b5','INTAKE','{}','{}','',2,'2026-01-06 04:57:40.183329');
INSERT INTO conversation VALUES('p_106f7c73f62ffa98','INTAKE','{}','{}','',4,'2026-01-06 04:57:54.823493');
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
INSERT INTO message VALUES(1,'p_85a2c37e65498c36','out','assistant','greeting','Walk around the block right after dinner tonight: ten minutes is plenty.','{}','dry-012083367c145176','sent','2026-01-06 04:57:35.776725','2026-01-06 04:57:35.920417');
INSERT INTO message VALUES(2,'p_6e3793d8ce340abc','out','assistant','greeting','Walk around the block right after dinner tonight: ten minutes is plenty.','{}','dry-88edc190c29fe8f0','sent','2026-01-06 04:57:36.600693','2026-01-06 04:57:36.626561');
INSERT INTO message VALUES(3,'p_d93c1649e18e3086','out','assistant','greeting','Walk around the block right after dinner tonight: ten minutes is plenty.','{}','dry-a6c83611e37687f0','sent','2026-01-06 04:57:38.159051','2026-01-06 04:57:38.259579');
INSERT INTO message VALUES(4,'p_251ffc3f997197b5','out','assistant','greeting','Walk around the block right after dinner tonight: ten minutes is plenty.','{}','dry-795161ef3ae158e1','sent','2026-01-06 04:57:40.183329','2026-01-06 04:57:40.218258');
INSERT INTO message VALUES(5,'p_106f7c73f62ffa98','out','assistant','greeting','Walk around the block right after dinner tonight: ten minutes is plenty.','{}','dry-87cc54a7b3a72730','sent','2026-01-06 04:57:42.187568','2026-01-06 04:57:42.219138');
INSERT INTO message VALUES(6,'p_85a2c37e65498c36','in','user','text','I''d like to walk around the block after dinner, just after midnight works','{}','sim-26b291bbaad8f522','answered','2026-01-06 04:57:44.826166',NULL);
INSERT INTO message VALUES(7,'p_85a2c37e65498c36','out','assistant','text','Lovely, your plan is set. I''ll nudge you each day.','{}','dry-13f2bc3fe2842a42','sent','2026-01-06 04:57:45.717166','2026-01-06 04:57:45.726861');
INSERT INTO message VALUES(8,'p_6e3793d8ce340abc','in','user','text','STOP','{}','sim-d0e9e9b6d966af6a','answered','2026-01-06 04:57:47.772735',NULL);
INSERT INTO message VALUES(9,'p_6e3793d8ce340abc','out','assistant','text','Walk around the block right after dinner tonight: ten minutes is plenty.','{}','dry-83ebad8716662679','sent','2026-01-06 04:57:48.517462','2026-01-06 04:57:48.521521');
INSERT INTO message VALUES(10,'p_106f7c73f62ffa98','in','user','text','STOP','{}','sim-77cfe63feebd018d','answered','2026-01-06 04:57:50.862655',NULL);
INSERT INTO message VALUES(11,'p_106f7c73f62ffa98','out','assistant','text','Walk around the block right after dinner tonight: ten minutes is plenty.','{}','dry-afa5fe4c0ab75ab4','sent','2026-01-06 04:57:51.509473','2026-01-06 04:57:51.681497');
INSERT INTO message VALUES(12,'p_106f7c73f62ffa98','in','user','text','START','{}','sim-2294d679a2a71429','answered','2026-01-06 04:57:53.851861',NULL);
INSERT INTO message VALUES(13,'p_106f7c73f62ffa98','out','assistant','text','Walk around the block right after dinner tonight: ten minutes is plenty.','{}','dry-8ce16b1dd8c29868','sent','2026-01-06 04:57:54.823493','2026-01-06 04:57:54.827062');
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
INSERT INTO transition VALUES(1,'p_85a2c37e65498c36','status','enrolled',NULL,'active','enrolled by a researcher','2026-01-06 04:57:32.954899');
INSERT INTO transition VALUES(2,'p_6e3793d8ce340abc','status','enrolled',NULL,'active','enrolled by a researcher','2026-01-06 04:57:36.084680');
INSERT INTO transition VALUES(3,'p_d93c1649e18e3086','status','enrolled',NULL,'active','enrolled by a researcher','2026-01-06 04:57:36.978189');
INSERT INTO transition VALUES(4,'p_251ffc3f997197b5','status','enrolled',NULL,'active','enrolled by a researcher','2026-01-06 04:57:39.156724');
INSERT INTO transition VALUES(5,'p_106f7c73f62ffa98','status','enrolled',NULL,'active','enrolled by a researcher','2026-01-06 04:57:41.422133');
INSERT INTO transition VALUES(6,'p_85a2c37e65498c36','sub_state','intake_to_feedback','INTAKE','FEEDBACK','the plan is set','2026-01-06 04:57:45.717166');
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
INSERT INTO inbox VALUES(1,'enroll:p_85a2c37e65498c36','p_85a2c37e65498c36','enroll','{}',NULL,'done',0,'2026-01-06 04:57:32.954899','2026-01-06 04:57:32.954899','2026-01-06 04:57:35.776725',NULL);
INSERT INTO inbox VALUES(2,'enroll:p_6e3793d8ce340abc','p_6e3793d8ce340abc','enroll','{}',NULL,'done',0,'2026-01-06 04:57:36.084680','2026-01-06 04:57:36.084680','2026-01-06 04:57:36.600693',NULL);
INSERT INTO inbox VALUES(3,'enroll:p_d93c1649e18e3086','p_d93c1649e18e3086','enroll','{}',NULL,'done',0,'2026-01-06 04:57:36.978189','2026-01-06 04:57:36.978189','2026-01-06 04:57:38.159051',NULL);
INSERT INTO inbox VALUES(4,'enroll:p_251ffc3f997197b5','p_251ffc3f997197b5','enroll','{}',NULL,'done',0,'2026-01-06 04:57:39.156724','2026-01-06 04:57:39.156724','2026-01-06 04:57:40.183329',NULL);
INSERT INTO inbox VALUES(5,'enroll:p_106f7c73f62ffa98','p_106f7c73f62ffa98','enroll','{}',NULL,'done',0,'2026-01-06 04:57:41.422133','2026-01-06 04:57:41.422133','2026-01-06 04:57:42.187568',NULL);
INSERT INTO inbox VALUES(6,'wa:sim-26b291bbaad8f522','p_85a2c37e65498c36','message','{}',6,'done',0,'2026-01-06 04:57:44.826166','2026-01-06 04:57:44.826166','2026-01-06 04:57:45.717166',NULL);
INSERT INTO inbox VALUES(7,'wa:sim-d0e9e9b6d966af6a','p_6e3793d8ce340abc','message','{}',8,'done',0,'2026-01-06 04:57:47.772735','2026-01-06 04:57:47.772735','2026-01-06 04:57:48.517462',NULL);
INSERT INTO inbox VALUES(8,'wa:sim-77cfe63feebd018d','p_106f7c73f62ffa98','message','{}',10,'done',0,'2026-01-06 04:57:50.862655','2026-01-06 04:57:50.862655','2026-01-06 04:57:51.509473',NULL);
INSERT INTO inbox VALUES(9,'wa:sim-2294d679a2a71429','p_106f7c73f62ffa98','message','{}',12,'done',0,'2026-01-06 04:57:53.851861','2026-01-06 04:57:53.851861','2026-01-06 04:57:54.823493',NULL);
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
INSERT INTO outbox VALUES(1,'reply:1','p_85a2c37e65498c36',1,'sent',1,'2026-01-06 04:57:35.776725','2026-01-06 04:57:35.905050','2026-01-06 04:57:35.920417','dry-012083367c145176',NULL,'2026-01-06 04:57:35.776725');
INSERT INTO outbox VALUES(2,'reply:2','p_6e3793d8ce340abc',2,'sent',1,'2026-01-06 04:57:36.600693','2026-01-06 04:57:36.624854','2026-01-06 04:57:36.626561','dry-88edc190c29fe8f0',NULL,'2026-01-06 04:57:36.600693');
INSERT INTO outbox VALUES(3,'reply:3','p_d93c1649e18e3086',3,'sent',1,'2026-01-06 04:57:38.159051','2026-01-06 04:57:38.257482','2026-01-06 04:57:38.259579','dry-a6c83611e37687f0',NULL,'2026-01-06 04:57:38.159051');
INSERT INTO outbox VALUES(4,'reply:4','p_251ffc3f997197b5',4,'sent',1,'2026-01-06 04:57:40.183329','2026-01-06 04:57:40.216353','2026-01-06 04:57:40.218258','dry-795161ef3ae158e1',NULL,'2026-01-06 04:57:40.183329');
INSERT INTO outbox VALUES(5,'reply:5','p_106f7c73f62ffa98',5,'sent',1,'2026-01-06 04:57:42.187568','2026-01-06 04:57:42.217981','2026-01-06 04:57:42.219138','dry-87cc54a7b3a72730',NULL,'2026-01-06 04:57:42.187568');
INSERT INTO outbox VALUES(6,'reply:6','p_85a2c37e65498c36',7,'sent',1,'2026-01-06 04:57:45.717166','2026-01-06 04:57:45.725973','2026-01-06 04:57:45.726861','dry-13f2bc3fe2842a42',NULL,'2026-01-06 04:57:45.717166');
INSERT INTO outbox VALUES(7,'reply:7','p_6e3793d8ce340abc',9,'sent',1,'2026-01-06 04:57:48.517462','2026-01-06 04:57:48.520637','2026-01-06 04:57:48.521521','dry-83ebad8716662679',NULL,'2026-01-06 04:57:48.517462');
INSERT INTO outbox VALUES(8,'reply:8','p_106f7c73f62ffa98',11,'sent',1,'2026-01-06 04:57:51.509473','2026-01-06 04:57:51.680166','2026-01-06 04:57:51.681497','dry-afa5fe4c0ab75ab4',NULL,'2026-01-06 04:57:51.509473');
INSERT INTO outbox VALUES(9,'reply:9','p_106f7c73f62ffa98',13,'sent',1,'2026-01-06 04:57:54.823493','2026-01-06 04:57:54.826226','2026-01-06 04:57:54.827062','dry-8ce16b1dd8c29868',NULL,'2026-01-06 04:57:54.823493');
CREATE INDEX ix_participant_lid ON participant (lid);
CREATE UNIQUE INDEX ix_participant_phone ON participant (phone);
CREATE INDEX ix_lid_mapping_phone ON lid_mapping (phone);
CREATE INDEX ix_message_participant_id_id ON message (participant_id, id);
CREATE INDEX ix_message_wa_message_id ON message (wa_message_id);
CREATE INDEX ix_transition_participant_id ON transition (participant_id);
CREATE INDEX ix_inbox_status_available ON inbox (status, available_at);
CREATE INDEX ix_inbox_participant_status ON inbox (participant_id, status, id);
CREATE INDEX ix_outbox_status_available ON outbox (status, available_at);
CREATE INDEX ix_outbox_participant_id ON outbox (participant_id, id);
COMMIT;
