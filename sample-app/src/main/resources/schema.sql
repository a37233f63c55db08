create table if not exists users (name varchar(100) primary key);
create table if not exists lottery_winners (draw_day date not null, user_name varchar(100) not null,
  primary key (draw_day, user_name));
create table if not exists fulfilments (id bigint auto_increment primary key, order_id varchar(100) not null,
  item varchar(100) not null, buyer varchar(100) not null, fulfilled_at timestamp default current_timestamp);
