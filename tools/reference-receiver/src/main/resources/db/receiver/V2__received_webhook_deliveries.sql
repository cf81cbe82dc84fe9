-- How many times each webhook arrived with its stored event: 1 unless the sender repeated it (GET /received).
alter table received_webhook add column deliveries integer not null default 1;
