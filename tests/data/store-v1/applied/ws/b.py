x = load_data(3)
