x = fetch_data(fetch_data(1))
