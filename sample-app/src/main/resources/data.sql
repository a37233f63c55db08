merge into users key (name) select 'user-' || x from system_range(1, 100);
