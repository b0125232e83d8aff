--
-- PostgreSQL database dump
--

\restrict H6sXvzn0vXFlOnrTPl2VfgQFaHIXx9nRzzleysCpHG50CZJRLK23Zxpi7r8hofN

-- Dumped from database version 15.20 (Debian 15.20-0+deb12u1)
-- Dumped by pg_dump version 15.20 (Debian 15.20-0+deb12u1)

SET statement_timeout = 0;
SET lock_timeout = 0;
SET idle_in_transaction_session_timeout = 0;
SET client_encoding = 'UTF8';
SET standard_conforming_strings = on;
SELECT pg_catalog.set_config('search_path', '', false);
SET check_function_bodies = false;
SET xmloption = content;
SET client_min_messages = warning;
SET row_security = off;

SET default_tablespace = '';

SET default_table_access_method = heap;

--
-- Name: conversation; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.conversation (
    participant_id character varying NOT NULL,
    sub_state character varying NOT NULL,
    profile jsonb NOT NULL,
    tone jsonb NOT NULL,
    summary text NOT NULL,
    version integer NOT NULL,
    updated_at timestamp with time zone NOT NULL
);


--
-- Name: inbox; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.inbox (
    id integer NOT NULL,
    key character varying NOT NULL,
    participant_id character varying NOT NULL,
    kind character varying NOT NULL,
    payload jsonb NOT NULL,
    message_id integer,
    status character varying NOT NULL,
    attempts integer NOT NULL,
    available_at timestamp with time zone NOT NULL,
    created_at timestamp with time zone NOT NULL,
    processed_at timestamp with time zone,
    last_error text
);


--
-- Name: inbox_id_seq; Type: SEQUENCE; Schema: public; Owner: -
--

CREATE SEQUENCE public.inbox_id_seq
    AS integer
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1;


--
-- Name: inbox_id_seq; Type: SEQUENCE OWNED BY; Schema: public; Owner: -
--

ALTER SEQUENCE public.inbox_id_seq OWNED BY public.inbox.id;


--
-- Name: lid_mapping; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.lid_mapping (
    lid character varying NOT NULL,
    phone character varying NOT NULL,
    updated_at timestamp with time zone NOT NULL
);


--
-- Name: message; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.message (
    id integer NOT NULL,
    participant_id character varying NOT NULL,
    direction character varying NOT NULL,
    role character varying NOT NULL,
    kind character varying NOT NULL,
    text text NOT NULL,
    payload jsonb NOT NULL,
    wa_message_id character varying,
    status character varying NOT NULL,
    created_at timestamp with time zone NOT NULL,
    sent_at timestamp with time zone
);


--
-- Name: message_id_seq; Type: SEQUENCE; Schema: public; Owner: -
--

CREATE SEQUENCE public.message_id_seq
    AS integer
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1;


--
-- Name: message_id_seq; Type: SEQUENCE OWNED BY; Schema: public; Owner: -
--

ALTER SEQUENCE public.message_id_seq OWNED BY public.message.id;


--
-- Name: outbox; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.outbox (
    id integer NOT NULL,
    key character varying NOT NULL,
    participant_id character varying NOT NULL,
    message_id integer NOT NULL,
    status character varying NOT NULL,
    attempts integer NOT NULL,
    available_at timestamp with time zone NOT NULL,
    claimed_at timestamp with time zone,
    sent_at timestamp with time zone,
    wa_message_id character varying,
    last_error text,
    created_at timestamp with time zone NOT NULL
);


--
-- Name: outbox_id_seq; Type: SEQUENCE; Schema: public; Owner: -
--

CREATE SEQUENCE public.outbox_id_seq
    AS integer
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1;


--
-- Name: outbox_id_seq; Type: SEQUENCE OWNED BY; Schema: public; Owner: -
--

ALTER SEQUENCE public.outbox_id_seq OWNED BY public.outbox.id;


--
-- Name: participant; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.participant (
    id character varying NOT NULL,
    phone character varying NOT NULL,
    lid character varying,
    name character varying NOT NULL,
    timezone character varying NOT NULL,
    status character varying NOT NULL,
    background text NOT NULL,
    enrolled_at timestamp with time zone NOT NULL,
    updated_at timestamp with time zone NOT NULL
);


--
-- Name: transition; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.transition (
    id integer NOT NULL,
    participant_id character varying NOT NULL,
    kind character varying NOT NULL,
    name character varying NOT NULL,
    from_value character varying,
    to_value character varying NOT NULL,
    reason text NOT NULL,
    created_at timestamp with time zone NOT NULL
);


--
-- Name: transition_id_seq; Type: SEQUENCE; Schema: public; Owner: -
--

CREATE SEQUENCE public.transition_id_seq
    AS integer
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1;


--
-- Name: transition_id_seq; Type: SEQUENCE OWNED BY; Schema: public; Owner: -
--

ALTER SEQUENCE public.transition_id_seq OWNED BY public.transition.id;


--
-- Name: inbox id; Type: DEFAULT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.inbox ALTER COLUMN id SET DEFAULT nextval('public.inbox_id_seq'::regclass);


--
-- Name: message id; Type: DEFAULT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.message ALTER COLUMN id SET DEFAULT nextval('public.message_id_seq'::regclass);


--
-- Name: outbox id; Type: DEFAULT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.outbox ALTER COLUMN id SET DEFAULT nextval('public.outbox_id_seq'::regclass);


--
-- Name: transition id; Type: DEFAULT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.transition ALTER COLUMN id SET DEFAULT nextval('public.transition_id_seq'::regclass);


--
-- Data for Name: conversation; Type: TABLE DATA; Schema: public; Owner: -
--

INSERT INTO public.conversation VALUES ('p_4fac2251984651e5', 'INTAKE', '{}', '{}', '', 2, '2026-01-06 04:57:38.975186+00');
INSERT INTO public.conversation VALUES ('p_54227bdd9db59232', 'INTAKE', '{}', '{}', '', 2, '2026-01-06 04:57:40.990509+00');
INSERT INTO public.conversation VALUES ('p_455aec0ab52c6c4f', 'FEEDBACK', '{"updated_at": "2026-01-06T04:57:46.595096+00:00", "habit_domain": "walking", "prompt_anchor": "after dinner", "preferred_time": "00:01", "motivational_frame": "to sleep better"}', '{}', '', 3, '2026-01-06 04:57:46.642591+00');
INSERT INTO public.conversation VALUES ('p_1ef1d079ecee397e', 'INTAKE', '{}', '{}', '', 3, '2026-01-06 04:57:50.203926+00');
INSERT INTO public.conversation VALUES ('p_af1236cae823c329', 'INTAKE', '{}', '{}', '', 4, '2026-01-06 04:57:56.811336+00');


--
-- Data for Name: inbox; Type: TABLE DATA; Schema: public; Owner: -
--

INSERT INTO public.inbox VALUES (1, 'enroll:p_455aec0ab52c6c4f', 'p_455aec0ab52c6c4f', 'enroll', '{}', NULL, 'done', 0, '2026-01-06 04:57:32.849452+00', '2026-01-06 04:57:32.849452+00', '2026-01-06 04:57:36.17598+00', NULL);
INSERT INTO public.inbox VALUES (2, 'enroll:p_1ef1d079ecee397e', 'p_1ef1d079ecee397e', 'enroll', '{}', NULL, 'done', 0, '2026-01-06 04:57:35.541371+00', '2026-01-06 04:57:35.541371+00', '2026-01-06 04:57:37.017546+00', NULL);
INSERT INTO public.inbox VALUES (3, 'enroll:p_4fac2251984651e5', 'p_4fac2251984651e5', 'enroll', '{}', NULL, 'done', 0, '2026-01-06 04:57:38.490731+00', '2026-01-06 04:57:38.490731+00', '2026-01-06 04:57:38.975186+00', NULL);
INSERT INTO public.inbox VALUES (4, 'enroll:p_54227bdd9db59232', 'p_54227bdd9db59232', 'enroll', '{}', NULL, 'done', 0, '2026-01-06 04:57:40.353508+00', '2026-01-06 04:57:40.353508+00', '2026-01-06 04:57:40.990509+00', NULL);
INSERT INTO public.inbox VALUES (5, 'enroll:p_af1236cae823c329', 'p_af1236cae823c329', 'enroll', '{}', NULL, 'done', 0, '2026-01-06 04:57:42.565088+00', '2026-01-06 04:57:42.565088+00', '2026-01-06 04:57:43.01057+00', NULL);
INSERT INTO public.inbox VALUES (6, 'wa:sim-07567e5fb38b0629', 'p_455aec0ab52c6c4f', 'message', '{}', 6, 'done', 0, '2026-01-06 04:57:45.982465+00', '2026-01-06 04:57:45.982465+00', '2026-01-06 04:57:46.642591+00', NULL);
INSERT INTO public.inbox VALUES (7, 'wa:sim-5d9ee08c357fedbf', 'p_1ef1d079ecee397e', 'message', '{}', 8, 'done', 0, '2026-01-06 04:57:49.049099+00', '2026-01-06 04:57:49.049099+00', '2026-01-06 04:57:50.203926+00', NULL);
INSERT INTO public.inbox VALUES (8, 'wa:sim-cccc25a6a8211bda', 'p_af1236cae823c329', 'message', '{}', 10, 'done', 0, '2026-01-06 04:57:51.98153+00', '2026-01-06 04:57:51.98153+00', '2026-01-06 04:57:53.31044+00', NULL);
INSERT INTO public.inbox VALUES (9, 'wa:sim-d29492342dd94fa0', 'p_af1236cae823c329', 'message', '{}', 12, 'done', 0, '2026-01-06 04:57:55.98224+00', '2026-01-06 04:57:55.98224+00', '2026-01-06 04:57:56.811336+00', NULL);


--
-- Data for Name: lid_mapping; Type: TABLE DATA; Schema: public; Owner: -
--



--
-- Data for Name: message; Type: TABLE DATA; Schema: public; Owner: -
--

INSERT INTO public.message VALUES (1, 'p_455aec0ab52c6c4f', 'out', 'assistant', 'greeting', 'Walk around the block right after dinner tonight: ten minutes is plenty.', '{}', 'dry-643b2ad841a844c5', 'sent', '2026-01-06 04:57:36.17598+00', '2026-01-06 04:57:36.278462+00');
INSERT INTO public.message VALUES (2, 'p_1ef1d079ecee397e', 'out', 'assistant', 'greeting', 'Walk around the block right after dinner tonight: ten minutes is plenty.', '{}', 'dry-b8578bdefcafb0e1', 'sent', '2026-01-06 04:57:37.017546+00', '2026-01-06 04:57:37.040041+00');
INSERT INTO public.message VALUES (3, 'p_4fac2251984651e5', 'out', 'assistant', 'greeting', 'Walk around the block right after dinner tonight: ten minutes is plenty.', '{}', 'dry-768d3fd4a5ace283', 'sent', '2026-01-06 04:57:38.975186+00', '2026-01-06 04:57:39.005664+00');
INSERT INTO public.message VALUES (4, 'p_54227bdd9db59232', 'out', 'assistant', 'greeting', 'Walk around the block right after dinner tonight: ten minutes is plenty.', '{}', 'dry-f297ac24f19375e6', 'sent', '2026-01-06 04:57:40.990509+00', '2026-01-06 04:57:41.021933+00');
INSERT INTO public.message VALUES (5, 'p_af1236cae823c329', 'out', 'assistant', 'greeting', 'Walk around the block right after dinner tonight: ten minutes is plenty.', '{}', 'dry-91b004b19ce4f8c7', 'sent', '2026-01-06 04:57:43.01057+00', '2026-01-06 04:57:43.058066+00');
INSERT INTO public.message VALUES (6, 'p_455aec0ab52c6c4f', 'in', 'user', 'text', 'I''d like to walk around the block after dinner, just after midnight works', '{}', 'sim-07567e5fb38b0629', 'answered', '2026-01-06 04:57:45.982465+00', NULL);
INSERT INTO public.message VALUES (7, 'p_455aec0ab52c6c4f', 'out', 'assistant', 'text', 'Lovely, your plan is set. I''ll nudge you each day.', '{}', 'dry-15a4fa247f195123', 'sent', '2026-01-06 04:57:46.642591+00', '2026-01-06 04:57:46.666431+00');
INSERT INTO public.message VALUES (8, 'p_1ef1d079ecee397e', 'in', 'user', 'text', 'STOP', '{}', 'sim-5d9ee08c357fedbf', 'answered', '2026-01-06 04:57:49.049099+00', NULL);
INSERT INTO public.message VALUES (9, 'p_1ef1d079ecee397e', 'out', 'assistant', 'text', 'Walk around the block right after dinner tonight: ten minutes is plenty.', '{}', 'dry-8fd1a499968c9191', 'sent', '2026-01-06 04:57:50.203926+00', '2026-01-06 04:57:50.247891+00');
INSERT INTO public.message VALUES (10, 'p_af1236cae823c329', 'in', 'user', 'text', 'STOP', '{}', 'sim-cccc25a6a8211bda', 'answered', '2026-01-06 04:57:51.98153+00', NULL);
INSERT INTO public.message VALUES (11, 'p_af1236cae823c329', 'out', 'assistant', 'text', 'Walk around the block right after dinner tonight: ten minutes is plenty.', '{}', 'dry-f82be32179495430', 'sent', '2026-01-06 04:57:53.31044+00', '2026-01-06 04:57:53.349747+00');
INSERT INTO public.message VALUES (12, 'p_af1236cae823c329', 'in', 'user', 'text', 'START', '{}', 'sim-d29492342dd94fa0', 'answered', '2026-01-06 04:57:55.98224+00', NULL);
INSERT INTO public.message VALUES (13, 'p_af1236cae823c329', 'out', 'assistant', 'text', 'Walk around the block right after dinner tonight: ten minutes is plenty.', '{}', 'dry-acdf66bc4ce5f99f', 'sent', '2026-01-06 04:57:56.811336+00', '2026-01-06 04:57:56.8337+00');


--
-- Data for Name: outbox; Type: TABLE DATA; Schema: public; Owner: -
--

INSERT INTO public.outbox VALUES (1, 'reply:1', 'p_455aec0ab52c6c4f', 1, 'sent', 1, '2026-01-06 04:57:36.17598+00', '2026-01-06 04:57:36.257478+00', '2026-01-06 04:57:36.278462+00', 'dry-643b2ad841a844c5', NULL, '2026-01-06 04:57:36.17598+00');
INSERT INTO public.outbox VALUES (2, 'reply:2', 'p_1ef1d079ecee397e', 2, 'sent', 1, '2026-01-06 04:57:37.017546+00', '2026-01-06 04:57:37.031956+00', '2026-01-06 04:57:37.040041+00', 'dry-b8578bdefcafb0e1', NULL, '2026-01-06 04:57:37.017546+00');
INSERT INTO public.outbox VALUES (3, 'reply:3', 'p_4fac2251984651e5', 3, 'sent', 1, '2026-01-06 04:57:38.975186+00', '2026-01-06 04:57:39.002228+00', '2026-01-06 04:57:39.005664+00', 'dry-768d3fd4a5ace283', NULL, '2026-01-06 04:57:38.975186+00');
INSERT INTO public.outbox VALUES (4, 'reply:4', 'p_54227bdd9db59232', 4, 'sent', 1, '2026-01-06 04:57:40.990509+00', '2026-01-06 04:57:41.01424+00', '2026-01-06 04:57:41.021933+00', 'dry-f297ac24f19375e6', NULL, '2026-01-06 04:57:40.990509+00');
INSERT INTO public.outbox VALUES (5, 'reply:5', 'p_af1236cae823c329', 5, 'sent', 1, '2026-01-06 04:57:43.01057+00', '2026-01-06 04:57:43.047885+00', '2026-01-06 04:57:43.058066+00', 'dry-91b004b19ce4f8c7', NULL, '2026-01-06 04:57:43.01057+00');
INSERT INTO public.outbox VALUES (6, 'reply:6', 'p_455aec0ab52c6c4f', 7, 'sent', 1, '2026-01-06 04:57:46.642591+00', '2026-01-06 04:57:46.654459+00', '2026-01-06 04:57:46.666431+00', 'dry-15a4fa247f195123', NULL, '2026-01-06 04:57:46.642591+00');
INSERT INTO public.outbox VALUES (7, 'reply:7', 'p_1ef1d079ecee397e', 9, 'sent', 1, '2026-01-06 04:57:50.203926+00', '2026-01-06 04:57:50.241352+00', '2026-01-06 04:57:50.247891+00', 'dry-8fd1a499968c9191', NULL, '2026-01-06 04:57:50.203926+00');
INSERT INTO public.outbox VALUES (8, 'reply:8', 'p_af1236cae823c329', 11, 'sent', 1, '2026-01-06 04:57:53.31044+00', '2026-01-06 04:57:53.342275+00', '2026-01-06 04:57:53.349747+00', 'dry-f82be32179495430', NULL, '2026-01-06 04:57:53.31044+00');
INSERT INTO public.outbox VALUES (9, 'reply:9', 'p_af1236cae823c329', 13, 'sent', 1, '2026-01-06 04:57:56.811336+00', '2026-01-06 04:57:56.829635+00', '2026-01-06 04:57:56.8337+00', 'dry-acdf66bc4ce5f99f', NULL, '2026-01-06 04:57:56.811336+00');


--
-- Data for Name: participant; Type: TABLE DATA; Schema: public; Owner: -
--

INSERT INTO public.participant VALUES ('p_455aec0ab52c6c4f', '+14165550140', NULL, 'Ana', 'America/Toronto', 'active', '', '2026-01-06 04:57:32.849452+00', '2026-01-06 04:57:32.849452+00');
INSERT INTO public.participant VALUES ('p_1ef1d079ecee397e', '+14165550141', NULL, 'Ben', 'America/Toronto', 'active', '', '2026-01-06 04:57:35.541371+00', '2026-01-06 04:57:35.541371+00');
INSERT INTO public.participant VALUES ('p_4fac2251984651e5', '+14165550142', NULL, 'Cleo', 'America/Toronto', 'active', '', '2026-01-06 04:57:38.490731+00', '2026-01-06 04:57:38.490731+00');
INSERT INTO public.participant VALUES ('p_54227bdd9db59232', '+14165550143', NULL, 'Dev', 'America/Toronto', 'active', '', '2026-01-06 04:57:40.353508+00', '2026-01-06 04:57:40.353508+00');
INSERT INTO public.participant VALUES ('p_af1236cae823c329', '+14165550144', NULL, 'Eli', 'America/Toronto', 'active', '', '2026-01-06 04:57:42.565088+00', '2026-01-06 04:57:42.565088+00');


--
-- Data for Name: transition; Type: TABLE DATA; Schema: public; Owner: -
--

INSERT INTO public.transition VALUES (1, 'p_455aec0ab52c6c4f', 'status', 'enrolled', NULL, 'active', 'enrolled by a researcher', '2026-01-06 04:57:32.849452+00');
INSERT INTO public.transition VALUES (2, 'p_1ef1d079ecee397e', 'status', 'enrolled', NULL, 'active', 'enrolled by a researcher', '2026-01-06 04:57:35.541371+00');
INSERT INTO public.transition VALUES (3, 'p_4fac2251984651e5', 'status', 'enrolled', NULL, 'active', 'enrolled by a researcher', '2026-01-06 04:57:38.490731+00');
INSERT INTO public.transition VALUES (4, 'p_54227bdd9db59232', 'status', 'enrolled', NULL, 'active', 'enrolled by a researcher', '2026-01-06 04:57:40.353508+00');
INSERT INTO public.transition VALUES (5, 'p_af1236cae823c329', 'status', 'enrolled', NULL, 'active', 'enrolled by a researcher', '2026-01-06 04:57:42.565088+00');
INSERT INTO public.transition VALUES (6, 'p_455aec0ab52c6c4f', 'sub_state', 'intake_to_feedback', 'INTAKE', 'FEEDBACK', 'the plan is set', '2026-01-06 04:57:46.642591+00');


--
-- Name: inbox_id_seq; Type: SEQUENCE SET; Schema: public; Owner: -
--

SELECT pg_catalog.setval('public.inbox_id_seq', 9, true);


--
-- Name: message_id_seq; Type: SEQUENCE SET; Schema: public; Owner: -
--

SELECT pg_catalog.setval('public.message_id_seq', 13, true);


--
-- Name: outbox_id_seq; Type: SEQUENCE SET; Schema: public; Owner: -
--

SELECT pg_catalog.setval('public.outbox_id_seq', 9, true);


--
-- Name: transition_id_seq; Type: SEQUENCE SET; Schema: public; Owner: -
--

SELECT pg_catalog.setval('public.transition_id_seq', 6, true);


--
-- Name: conversation conversation_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.conversation
    ADD CONSTRAINT conversation_pkey PRIMARY KEY (participant_id);


--
-- Name: inbox inbox_key_key; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.inbox
    ADD CONSTRAINT inbox_key_key UNIQUE (key);


--
-- Name: inbox inbox_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.inbox
    ADD CONSTRAINT inbox_pkey PRIMARY KEY (id);


--
-- Name: lid_mapping lid_mapping_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.lid_mapping
    ADD CONSTRAINT lid_mapping_pkey PRIMARY KEY (lid);


--
-- Name: message message_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.message
    ADD CONSTRAINT message_pkey PRIMARY KEY (id);


--
-- Name: outbox outbox_key_key; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.outbox
    ADD CONSTRAINT outbox_key_key UNIQUE (key);


--
-- Name: outbox outbox_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.outbox
    ADD CONSTRAINT outbox_pkey PRIMARY KEY (id);


--
-- Name: participant participant_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.participant
    ADD CONSTRAINT participant_pkey PRIMARY KEY (id);


--
-- Name: transition transition_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.transition
    ADD CONSTRAINT transition_pkey PRIMARY KEY (id);


--
-- Name: ix_inbox_participant_status; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX ix_inbox_participant_status ON public.inbox USING btree (participant_id, status, id);


--
-- Name: ix_inbox_status_available; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX ix_inbox_status_available ON public.inbox USING btree (status, available_at);


--
-- Name: ix_lid_mapping_phone; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX ix_lid_mapping_phone ON public.lid_mapping USING btree (phone);


--
-- Name: ix_message_participant_id_id; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX ix_message_participant_id_id ON public.message USING btree (participant_id, id);


--
-- Name: ix_message_wa_message_id; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX ix_message_wa_message_id ON public.message USING btree (wa_message_id);


--
-- Name: ix_outbox_participant_id; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX ix_outbox_participant_id ON public.outbox USING btree (participant_id, id);


--
-- Name: ix_outbox_status_available; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX ix_outbox_status_available ON public.outbox USING btree (status, available_at);


--
-- Name: ix_participant_lid; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX ix_participant_lid ON public.participant USING btree (lid);


--
-- Name: ix_participant_phone; Type: INDEX; Schema: public; Owner: -
--

CREATE UNIQUE INDEX ix_participant_phone ON public.participant USING btree (phone);


--
-- Name: ix_transition_participant_id; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX ix_transition_participant_id ON public.transition USING btree (participant_id);


--
-- Name: conversation conversation_participant_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.conversation
    ADD CONSTRAINT conversation_participant_id_fkey FOREIGN KEY (participant_id) REFERENCES public.participant(id);


--
-- Name: inbox inbox_message_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.inbox
    ADD CONSTRAINT inbox_message_id_fkey FOREIGN KEY (message_id) REFERENCES public.message(id);


--
-- Name: inbox inbox_participant_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.inbox
    ADD CONSTRAINT inbox_participant_id_fkey FOREIGN KEY (participant_id) REFERENCES public.participant(id);


--
-- Name: message message_participant_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.message
    ADD CONSTRAINT message_participant_id_fkey FOREIGN KEY (participant_id) REFERENCES public.participant(id);


--
-- Name: outbox outbox_message_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.outbox
    ADD CONSTRAINT outbox_message_id_fkey FOREIGN KEY (message_id) REFERENCES public.message(id);


--
-- Name: outbox outbox_participant_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.outbox
    ADD CONSTRAINT outbox_participant_id_fkey FOREIGN KEY (participant_id) REFERENCES public.participant(id);


--
-- Name: transition transition_participant_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.transition
    ADD CONSTRAINT transition_participant_id_fkey FOREIGN KEY (participant_id) REFERENCES public.participant(id);


--
-- PostgreSQL database dump complete
--

\unrestrict H6sXvzn0vXFlOnrTPl2VfgQFaHIXx9nRzzleysCpHG50CZJRLK23Zxpi7r8hofN

